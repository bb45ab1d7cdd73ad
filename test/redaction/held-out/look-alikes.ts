import { createHash } from 'node:crypto'
import {
  ALNUM,
  b64,
  chars,
  DIGITS,
  HEX,
  LOWER_ALNUM,
  mixed,
  type Rng,
  randomB64,
  rngFor,
  UPPER_ALNUM,
} from '../corpus/gen.ts'
import type { LookAlike } from '../corpus/types.ts'

/**
 * The HELD-OUT look-alikes: no test asserts on them and the rules are not tuned on them;
 * `node bench/redaction-held-out.ts` measures how many get redacted. None of their templates is in
 * the main set.
 */

function many(prefix: string, n: number, make: (r: Rng, i: number) => string): LookAlike[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `${prefix}-${i}`,
    text: make(rngFor('held-out-look-alike', prefix, i), i),
  }))
}

function fixed(prefix: string, texts: string[]): LookAlike[] {
  return texts.map((text, i) => ({ id: `${prefix}-${i}`, text }))
}

const BASE32_LOWER = 'abcdefghijklmnopqrstuvwxyz234567'

export const HELD_OUT_LOOK_ALIKES: readonly LookAlike[] = [
  // Sentry documents the DSN's key as public: it ships in browser bundles.
  ...many(
    'sentry-public-dsn',
    4,
    (r) => `https://${chars(r, HEX, 32)}@o${chars(r, DIGITS, 6)}.ingest.sentry.io/${chars(r, DIGITS, 7)}`,
  ),
  ...many('traceparent', 4, (r) => `traceparent: 00-${chars(r, HEX, 32)}-${chars(r, HEX, 16)}-01`),
  ...many('otel-trace-id', 3, (r) => `trace_id=${chars(r, HEX, 32)} span_id=${chars(r, HEX, 16)}`),
  ...many('ethereum-address', 3, (r) => `0x${chars(r, HEX, 40)}`),
  ...many('ipfs-cid', 3, (r) => `bafybei${chars(r, BASE32_LOWER, 52)}`),
  ...many('twilio-account-sid', 3, (r) => `AC${chars(r, HEX, 32)}`),
  ...many(
    'google-drive-file-id',
    3,
    (r) => `https://drive.google.com/file/d/1${mixed(r, `${ALNUM}-_`, 32)}/view`,
  ),
  ...many('youtube-id', 3, (r) => `https://www.youtube.com/watch?v=${mixed(r, `${ALNUM}-_`, 11)}`),
  ...many('aws-arn', 3, (r) => `arn:aws:iam::${chars(r, DIGITS, 12)}:role/agent-${chars(r, LOWER_ALNUM, 6)}`),
  ...many(
    'aws-request-id',
    3,
    (r) =>
      `x-amzn-requestid: ${chars(r, HEX, 8)}-${chars(r, HEX, 4)}-${chars(r, HEX, 4)}-${chars(r, HEX, 4)}-${chars(r, HEX, 12)}`,
  ),
  ...many('k8s-pod-name', 3, (r) => `api-${chars(r, LOWER_ALNUM, 9)}-${chars(r, LOWER_ALNUM, 5)}`),
  ...many(
    'git-lfs-pointer',
    2,
    (r) =>
      `version https://git-lfs.github.com/spec/v1\noid sha256:${chars(r, HEX, 64)}\nsize ${chars(r, DIGITS, 6)}`,
  ),
  ...many('image-ref-digest', 2, (r) => `ghcr.io/acme/agent@sha256:${chars(r, HEX, 64)}`),
  ...many('etag', 3, (r) => `ETag: "${chars(r, HEX, 32)}"`),
  ...many('encrypted-reasoning', 3, (r) => `gAAAAAB${randomB64(r, 90, 'url')}`),
  ...many('gemini-thought-signature', 2, (r) => `CiQB${randomB64(r, 60)}`),
  ...many('base64-json-text', 3, (_r, i) =>
    b64(JSON.stringify({ page: i + 2, sort: 'asc', filter: 'open tickets' })),
  ),
  ...many(
    'sha1-hex',
    3,
    (r) =>
      `sha1:${createHash('sha1')
        .update(chars(r, HEX, 8))
        .digest('hex')}`,
  ),
  ...many('crc-like', 2, (r) => `checksum ${chars(r, UPPER_ALNUM, 8)}`),
  ...fixed('placeholder-key', [
    'sk_live_your_key_here',
    'ghp_your_token_here',
    'AK' + 'IAXXXXXXXXXXXXXXXX',
    'xoxb-your-bot-token',
    '<YOUR_STRIPE_SECRET_KEY>',
    'hf_xxx',
    'Bearer YOUR_ACCESS_TOKEN',
    'postgres://USER:PASSWORD@HOST:5432/DB',
  ]),
  ...fixed('prose-with-prefix', [
    'glpat- tokens are shown only once',
    'see the npm_ prefixed tokens section',
    'the AKIA prefix marks long-term keys',
    'rotate any -----BEGIN block you find in logs',
    'a DSN looks like scheme://user:pass@host',
  ]),
  ...fixed('analytics-id', [
    'G-7XK2ABCD9Q',
    'UA-1234567-1',
    'GTM-N8ZK2P4',
    'fbq("init", "1234567890123456")',
  ]),
  ...fixed('config-no-secret', [
    'DB_HOST=db.internal.example',
    'LOG_LEVEL=debug',
    'AUTH_PROVIDER=github',
    'TOKEN_URL=https://oauth2.googleapis.com/token',
    'password_policy: strict',
    'secret_name: prod/agent/db',
  ]),
]
