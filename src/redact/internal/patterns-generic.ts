import type { PatternRule } from '../types.ts'
import { isAssignedKey, isAssignedSecret } from './assigned-values.ts'
import {
  hasKeyMaterial,
  isBasicCredential,
  isJwt,
  isPlaceholder,
  looksLikeCredential,
  looksRandom,
} from './validators.ts'

/**
 * Formats that are not tied to one vendor: auth schemes, tokens in URLs and key material. They run after
 * the vendor formats, so that `Bearer sk-…` is recorded as an `openai-key` (the more useful name).
 *
 * Patterns with a `secret` group keep their context (`Bearer `, `password=`, the URL around a password)
 * so that a redacted cassette still reads as what it was.
 */

/** Query keys that name a password: any value but a placeholder is one. */
const QUERY_PASSWORD_KEYS = ['password', 'passwd', 'pwd']

/** Query keys that name a machine-made credential: any value but a placeholder or a word is one. */
const QUERY_KEYS = [
  'api[_-]?key',
  'apikey',
  'access[_-]?token',
  'refresh[_-]?token',
  'id[_-]?token',
  'auth[_-]?token',
  'private[_-]?token',
  'session[_-]?token',
  'sig',
  'signature',
  'client[_-]?secret',
  'secret',
  'access[_-]?key',
  'x-amz-signature',
  'x-amz-security-token',
  'x-amz-credential',
  'x-goog-signature',
  'x-goog-credential',
]

/**
 * Query keys that often carry a credential and as often do not: Gemini's `?key=`, `?token=`, OAuth's
 * `?code=`. Their value must look like one (`?key=coffee+shops` is a search, `?code=200` a status).
 */
const WEAK_QUERY_KEYS = ['key', 'token', 'auth', 'code']

const QUERY_VALUE = `(?<secret>[^&#;\\s"'\`<>\\\\]+)`

/** Passwords in URLs that documentation writes instead of one. */
const URL_PASSWORD_WORDS = /^(?:pass(?:word)?|passwd|pwd|secret|changeme|%s|\*+)$/i

export const GENERIC_PATTERNS: readonly PatternRule[] = [
  {
    id: 'private-key',
    hint: 'PRIVATE KEY',
    // The whole block, BEGIN to END. A block cut short (no END line) is dropped to the end of its
    // base64 body: half a key is still a key. `\\n` covers blocks inside JSON text.
    pattern:
      /-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\:,-]*)/,
    validate: hasKeyMaterial,
  },
  {
    id: 'jwt',
    hint: 'eyJ',
    // Header and payload are base64url JSON objects, so the first segment starts with `eyJ` (`{"`).
    pattern: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/,
    validate: isJwt,
  },
  {
    id: 'url-password',
    hint: '://',
    // `postgres://user:pass@host`, `redis://:pass@host`, `https://user:pass@host`: the password only.
    // The lookahead for `@` keeps `http://localhost:3000/` (a port, not a password) out.
    pattern: /(?<pre>\b[a-zA-Z][a-zA-Z0-9+.-]{1,30}:\/\/[^\s:/?#@"'<>\\]*:)(?<secret>[^\s/?#@"'<>\\]+)(?=@)/,
    validate: (s) => s.length >= 4 && !isPlaceholder(s) && !URL_PASSWORD_WORDS.test(s),
  },
  {
    id: 'aws-secret-key',
    hint: ['secret_access_key', 'secretaccesskey', 'secret-access-key'],
    // AWS's documented example secret (`…EXAMPLEKEY`) is a placeholder, not a key.
    pattern:
      /(?<pre>\b(?:aws[_-]?)?secret[_-]?access[_-]?key["']?\s*[=:]\s*["']?)(?<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/i,
    validate: (s) => looksRandom(s),
  },
  {
    id: 'azure-storage-key',
    hint: ['accountkey=', 'sharedaccesskey='],
    // Azure connection strings: `DefaultEndpointsProtocol=https;AccountName=x;AccountKey=…;`.
    pattern: /(?<pre>\b(?:AccountKey|SharedAccessKey)=)(?<secret>[A-Za-z0-9+/]{20,}={0,2})/i,
    validate: (s) => looksRandom(s),
  },
  {
    id: 'bearer-token',
    hint: 'bearer',
    // An all-lower-case word after "bearer" is prose ("bearer instruments"); the validator turns away
    // other words and placeholders (`Bearer Token`, `Bearer YOUR_TOKEN`).
    pattern:
      /\b(?<pre>(?:[Bb]earer|BEARER)[ \t]+)(?<secret>(?![a-z]+(?![A-Za-z0-9\-._~+/]))[A-Za-z0-9\-._~+/]{8,}=*)/,
    validate: (s) => looksLikeCredential(s, 8),
  },
  {
    id: 'basic-auth',
    hint: 'basic',
    // RFC 7617: base64 of `user:password`. The validator decodes it, so "Basic Concepts" and "Basic
    // README" (which decode to bytes without a colon) stay.
    pattern: /\b(?<pre>(?:[Bb]asic|BASIC)[ \t]+)(?<secret>[A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])/,
    validate: isBasicCredential,
  },
  {
    id: 'aws-signature',
    hint: 'signature=',
    // The request signature of SigV4 `Authorization` headers and presigned URLs written out of a query.
    pattern: /(?<pre>\bSignature=)(?<secret>[a-f0-9]{64})\b/,
    validate: (s) => looksRandom(s),
  },
  {
    id: 'query-secret',
    hint: ['key=', 'token=', 'sig=', 'signature=', 'secret=', 'credential='],
    // Only the value: `?access_token=…&page=2` becomes `?access_token=[REDACTED:query-secret]&page=2`.
    // `;` covers `&amp;key=` in HTML, `#` the OAuth implicit-flow fragment.
    pattern: new RegExp(`(?<pre>[?&;#](?:${QUERY_KEYS.join('|')})=)${QUERY_VALUE}`, 'i'),
    validate: isAssignedKey,
  },
  {
    id: 'query-secret',
    hint: ['password=', 'passwd=', 'pwd='],
    pattern: new RegExp(`(?<pre>[?&;#](?:${QUERY_PASSWORD_KEYS.join('|')})=)${QUERY_VALUE}`, 'i'),
    validate: isAssignedSecret,
  },
  {
    id: 'query-secret',
    hint: ['key=', 'token=', 'auth=', 'code='],
    pattern: new RegExp(`(?<pre>[?&;#](?:${WEAK_QUERY_KEYS.join('|')})=)${QUERY_VALUE}`, 'i'),
    validate: (s) => looksLikeCredential(s, 6),
  },
  {
    id: 'docker-auth',
    hint: '"auth"',
    // A registry login in Docker's `config.json` (`"auths": {"host": {"auth": "<base64 user:password>"}}`)
    // and in the same shape elsewhere: the value must decode to `user:password`.
    pattern: /"auth"\s*:\s*"(?<secret>[A-Za-z0-9+/]{8,}={0,2})"/,
    validate: isBasicCredential,
  },
]
