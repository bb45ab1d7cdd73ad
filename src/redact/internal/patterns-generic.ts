import type { PatternRule } from '../types.ts'

/**
 * Formats that are not tied to one vendor: auth schemes, tokens in URLs and key material. They run after
 * the vendor formats, so that `Bearer sk-…` is recorded as an `openai-key` (the more useful name).
 *
 * Patterns with a `secret` group keep their context (`Bearer `, `password=`, the URL around a password)
 * so that a redacted cassette still reads as what it was.
 */

/** Query keys whose value is a credential: Gemini `?key=`, OAuth fragments, SAS and presigned URLs. */
const QUERY_KEYS = [
  'key',
  'api[_-]?key',
  'apikey',
  'token',
  'access[_-]?token',
  'refresh[_-]?token',
  'id[_-]?token',
  'auth',
  'auth[_-]?token',
  'private[_-]?token',
  'session[_-]?token',
  'sig',
  'signature',
  'client[_-]?secret',
  'secret',
  'password',
  'passwd',
  'pwd',
  'code',
  'access[_-]?key',
  'x-amz-signature',
  'x-amz-security-token',
  'x-amz-credential',
  'x-goog-signature',
  'x-goog-credential',
]

/** Values that a `password: …` line in documentation or a schema carries instead of a secret. */
const NOT_A_VALUE =
  '(?!(?:true|false|null|none|undefined|string|required|optional|\\*+|x+)(?![^\\s"\'&,;<>\\\\]))'

export const GENERIC_PATTERNS: readonly PatternRule[] = [
  {
    id: 'private-key',
    hint: 'PRIVATE KEY',
    // The whole block, BEGIN to END. A block cut short (no END line) is dropped to the end of its
    // base64 body: half a key is still a key. `\\n` covers blocks inside JSON text.
    pattern:
      /-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\:,-]*)/,
  },
  {
    id: 'jwt',
    hint: 'eyJ',
    // Header and payload are base64url JSON objects, so the first segment starts with `eyJ` (`{"`).
    pattern: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/,
  },
  {
    id: 'url-password',
    hint: '://',
    // `postgres://user:pass@host`, `redis://:pass@host`, `https://user:pass@host`: the password only.
    // The lookahead for `@` keeps `http://localhost:3000/` (a port, not a password) out.
    pattern: /(?<pre>\b[a-zA-Z][a-zA-Z0-9+.-]{1,30}:\/\/[^\s:/?#@"'<>\\]*:)(?<secret>[^\s/?#@"'<>\\]+)(?=@)/,
  },
  {
    id: 'aws-secret-key',
    hint: ['secret_access_key', 'secretaccesskey', 'secret-access-key'],
    pattern:
      /(?<pre>\b(?:aws[_-]?)?secret[_-]?access[_-]?key["']?\s*[=:]\s*["']?)(?<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/i,
  },
  {
    id: 'azure-storage-key',
    hint: ['accountkey=', 'sharedaccesskey='],
    // Azure connection strings: `DefaultEndpointsProtocol=https;AccountName=x;AccountKey=…;`.
    pattern: /(?<pre>\b(?:AccountKey|SharedAccessKey)=)(?<secret>[A-Za-z0-9+/]{20,}={0,2})/i,
  },
  {
    id: 'bearer-token',
    hint: 'bearer',
    // An all-lower-case word after "bearer" is prose ("bearer instruments"), not a token.
    pattern:
      /\b(?<pre>(?:[Bb]earer|BEARER)[ \t]+)(?<secret>(?![a-z]+(?![A-Za-z0-9\-._~+/]))[A-Za-z0-9\-._~+/]{8,}=*)/,
  },
  {
    id: 'basic-auth',
    hint: 'basic',
    // base64(user:pass). A capitalised word ("Basic Concepts") has no upper case or digit after its
    // first letter; real credentials almost always do.
    pattern:
      /\b(?<pre>(?:[Bb]asic|BASIC)[ \t]+)(?<secret>[A-Za-z0-9+/](?=[A-Za-z0-9+/]*?[A-Z0-9+/])[A-Za-z0-9+/]{7,}={0,2})/,
  },
  {
    id: 'query-secret',
    hint: [
      'key=',
      'token=',
      'auth=',
      'sig=',
      'signature=',
      'secret=',
      'password=',
      'passwd=',
      'pwd=',
      'code=',
      'credential=',
    ],
    // Only the value: `?key=AIza…&alt=sse` becomes `?key=[REDACTED:query-secret]&alt=sse`. `;` covers
    // `&amp;key=` in HTML, `#` the OAuth implicit-flow fragment.
    pattern: new RegExp(`(?<pre>[?&;#](?:${QUERY_KEYS.join('|')})=)(?<secret>[^&#\\s"'<>\\\\]+)`, 'i'),
  },
  {
    id: 'secret-assignment',
    hint: ['pass', 'pwd', 'secret', 'token', 'key'],
    // `password=…`, `DB_PASSWORD: …`, `client_secret = "…"` in logs, env dumps and error messages. A
    // bare `token` is left to the key rules: `"token":"Hello"` is a logprobs entry, and
    // `max_tokens: 4096` and `next_page_token=` are data a replay needs.
    pattern: new RegExp(
      `(?<pre>(?:\\b(?:[a-z0-9]+[_-])*(?:password|passwd|pwd|passphrase|secret|secret[_-]?key|api[_-]?key|client[_-]?secret|private[_-]?key)|\\b(?:access|refresh|auth|api|bot|bearer)[_-]?token)["']?\\s*[=:]\\s*["']?)(?<secret>${NOT_A_VALUE}[^\\s"'&,;<>\\\\]{6,})`,
      'i',
    ),
  },
]
