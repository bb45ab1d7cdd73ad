import type { PatternRule } from '../types.ts'
import { isAssignedKey, isAssignedSecret } from './assigned-values.ts'
import { isPlaceholder, looksLikeCredential, looksRandom } from './validators.ts'

/**
 * Secrets named by their context rather than their shape: `DB_PASSWORD=…` in an env dump,
 * `api_key: …` in YAML, `//registry.npmjs.org/:_authToken=…` in `.npmrc`, a netrc `password`,
 * `curl -u user:pw`, `Cookie:` and `Set-Cookie:` headers and `Authorization: <scheme> …` in a log.
 * Only the value is replaced; the name stays, so a redacted cassette still reads as what it was.
 *
 * References are not values and stay as written (`=${OPENAI_API_KEY}`, `=$VAR`, `=<your key>`,
 * `=process.env.X`), and so do names that only look like secrets (`max_tokens=`, `token_count`,
 * `nextPageToken=`, `api_key_id=`, `secretary`, `password: string` in a schema).
 */

/** Names of passwords: any text can be one, so only non-values are turned away. */
const PASSWORD_NOUNS = 'password|passwd|passphrase|pwd'

/**
 * Names of machine-made secrets (`STRIPE_SECRET`, `x-api-key`, `GITHUB_AUTH_TOKEN`): a value made only
 * of words that describe a credential (`valid-refresh-token`) is a fixture, not one.
 */
const KEY_NOUNS = [
  'secret',
  '(?:secret|api|access|auth|app|master|license|encryption|signing|private|client)[_-]?key',
  'api[_-]?secret',
  'client[_-]?secret',
  '(?:access|refresh|auth|api|bot|bearer|session|oauth|id|deploy|service|private|server|vault|personal[_-]?access)[_-]?token',
  'client[_-]?key[_-]?data', // kubeconfig: base64 of a PEM private key
].join('|')

/** A name ending in one of `nouns`, with any words before it (`spring.datasource.password`, `PGPASSWORD`). */
const named = (nouns: string) => `\\b(?:[a-z0-9]+[_.-])*[a-z0-9]*?(?:${nouns})`

/** XML elements whose text is a secret: Maven `settings.xml`, NuGet and .NET configs. */
const XML_NAMES =
  '[\\w.:-]*?(?:password|passwd|passphrase|secret|api[_-]?key|apikey|access[_-]?token|auth[_-]?token|private[_-]?key|client[_-]?secret)'

/** `=`, `:`, `:=` (Go), `=>` (Ruby, PHP), with the quotes and spaces config formats put around them. */
const ASSIGN = `["']?[ \\t]*(?::=|=>|[=:])[ \\t]*["'\`]?`

/**
 * The value: up to a quote, a space or a separator. A letters-only word followed by more words is
 * prose ("Password: Must be 8 characters"); followed by `;`, `,`, `)` or an operator it is a variable in
 * code (`apiKey = resolved;`, `apiKey = provider ? null : …`, `secret: REDACT,`), not a value.
 */
const VALUE = `(?![A-Za-z_$]+(?:[ \\t]+[A-Za-z?|&=:]|[ \\t]*[;,)]))(?<secret>[^\\s"'\`&,;<>\\\\]{5,})`

/** Upper-case `*_TOKEN` names that hold data, not credentials. */
const DATA_TOKENS =
  'PAGE|NEXT|PREV|EOS|BOS|PAD|UNK|SEP|CLS|MASK|START|END|STOP|MAX|MIN|NUM|SPECIAL|CONTINUATION|CURSOR|SYNC|RESUME'

/** Upper-case `*_KEY` names that are not credentials. */
const DATA_KEYS =
  'PRIMARY|SORT|PARTITION|CACHE|PUBLIC|PUBLISHABLE|SITE|IDEMPOTENCY|FOREIGN|HOT|SHORTCUT|ROUTING|SHARD|LOOKUP|ENTITY|OBJECT|S3|BUCKET|GROUP|DEDUP|DEDUPE|MAP|HASH|REDIS|PREFIX|META|STORAGE|CONTEXT|STATE|QUERY|EVENT|FLAG|FEATURE|SYMBOL|INJECTION|CONFIG|SETTINGS'

export const ASSIGNMENT_PATTERNS: readonly PatternRule[] = [
  {
    id: 'secret-assignment',
    hint: ['pass', 'pwd'],
    // `password=…`, `DB_PASSWORD: …`, `spring.datasource.password=…`, `.npmrc` `_password=…`.
    pattern: new RegExp(`(?<pre>(?:${named(PASSWORD_NOUNS)}|(?<![\\w-])_password)${ASSIGN})${VALUE}`, 'i'),
    validate: isAssignedSecret,
  },
  {
    id: 'secret-assignment',
    hint: ['secret', 'token', 'key', '_auth'],
    // `client_secret = "…"`, `OPENAI_API_KEY=…`, `X-Api-Key: …`, `.npmrc` `_auth=…` and `_authToken=…`.
    pattern: new RegExp(`(?<pre>(?:${named(KEY_NOUNS)}|(?<![\\w-])_auth(?:token)?)${ASSIGN})${VALUE}`, 'i'),
    validate: isAssignedKey,
  },
  {
    id: 'secret-assignment',
    hint: '_token',
    // Environment variables `GITHUB_TOKEN=…`, `HF_TOKEN=…`, `VAULT_TOKEN=…`: upper case only, since
    // `next_page_token` and `eos_token` in code are data.
    pattern: new RegExp(
      `(?<pre>\\b(?![A-Z0-9_]*(?:${DATA_TOKENS})_TOKEN\\b)[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_TOKEN${ASSIGN})${VALUE}`,
    ),
    validate: isAssignedKey,
  },
  {
    id: 'secret-assignment',
    hint: '_key',
    // `STRIPE_KEY=…`, `MAPS_KEY=…`: any upper-case `*_KEY`, when the value looks like key material.
    pattern: new RegExp(
      `(?<pre>\\b(?![A-Z0-9_]*(?:${DATA_KEYS})_KEY\\b)[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_KEY${ASSIGN})${VALUE}`,
    ),
    // A reverse-DNS or URL-like name (`io.modelcontextprotocol/logLevel`) is a constant's value.
    validate: (s) =>
      isAssignedKey(s) && looksRandom(s, { minLength: 16 }) && !/^[a-z][\w-]*(?:\.[\w-]+)+\//.test(s),
  },
  {
    id: 'secret-assignment',
    hint: ['pass', 'secret', 'key', 'token'],
    // `<password>…</password>`, `<apiKey>…</apiKey>`: the element's text, when it closes right after.
    pattern: new RegExp(`(?<pre><(?<tag>${XML_NAMES})>)(?<secret>[^<>\\s][^<>]{2,}?)(?=</\\k<tag>>)`, 'i'),
    validate: isAssignedSecret,
  },
  {
    id: 'auth-header',
    hint: 'authorization',
    // `Authorization: Token …`, `Authorization: ApiKey …`, `Proxy-Authorization: …` inside text (a
    // header in a JSON body is a `sensitive-key`). Bearer and Basic have their own rules, which run first.
    // A credential of `k=v` parameters (`AWS4-HMAC-SHA256 Credential=…, SignedHeaders=…, Signature=…`)
    // is replaced to the end of the line.
    pattern:
      /(?<pre>(?<![\w-])(?:proxy-)?authorization["'`]?[ \t]*[:=][ \t]*["'`]?(?:[A-Za-z][\w.-]*[ \t]+)?)(?<secret>[^\s"'`<>\\,;=]+=[^\r\n"'`<>\\]*[^\s"'`<>\\]|[^\s"'`<>\\,;]{6,})/i,
    validate: (s) => looksLikeCredential(s, 6) && isAssignedSecret(s),
  },
  {
    id: 'cookie',
    hint: 'cookie',
    // Every value of a `Cookie:` request header: `Cookie: sid=[REDACTED:cookie]; theme=[REDACTED:cookie]`,
    // within the first 8 KiB of the header (browsers send no more; the bound keeps a huge line linear).
    pattern: /(?<=(?<![\w-])cookie[ \t]*:(?:[^\r\n]{0,8192}?;)?[ \t]*[^\s=;,"']+=)(?<secret>[^;\s"',]+)/i,
    validate: (s) => !isPlaceholder(s),
  },
  {
    id: 'cookie',
    hint: 'set-cookie',
    // Only the cookie's own value: the attributes after it (`Path`, `Expires`, `HttpOnly`) are not secret.
    pattern: /(?<pre>(?<![\w-])set-cookie[ \t]*:[ \t]*[^\s=;,"']+=)(?<secret>[^;\s"',]+)/i,
    validate: (s) => !isPlaceholder(s),
  },
  {
    id: 'netrc-password',
    hint: 'machine',
    // `machine api.example.com login me password s3cret`, on one line or several. The host has a dot
    // or a port, or a `login` follows it: "machine learning password manager" is prose.
    pattern:
      /(?<pre>\bmachine[ \t]+(?:(?:[^\s.:]*[.:]\S*|localhost)(?:\s+(?:login|account|port)[ \t]+\S+)*|\S+(?:\s+(?:login|account|port)[ \t]+\S+)+)\s+password[ \t]+)(?<secret>\S+)/,
    validate: (s) => !isPlaceholder(s),
  },
  {
    id: 'cli-password',
    hint: ['curl', 'mysql', 'mariadb', 'sshpass'],
    // `curl -u user:pw`, `curl --user=user:pw`, `mysql -u root -pS3cret`, `sshpass -p S3cret ssh …`;
    // the flag within 1 KiB of the command, so that a long line costs linear time.
    pattern:
      /(?<pre>(?:\bcurl\b[^\r\n]{0,1024}?[ \t](?:-u|--user|--proxy-user|-U)(?:[ \t]+|=)["']?[^\s:"']*:|\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\r\n]{0,1024}?[ \t]-p(?=[^\s-])|\bsshpass[ \t]+-p[ \t]*))(?<secret>[^\s"']+)/,
    validate: isAssignedSecret,
  },
]
