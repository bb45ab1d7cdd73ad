import { createHash } from 'node:crypto'
import {
  ALNUM,
  BECH32,
  b64,
  b64url,
  chars,
  DIGITS,
  HEX,
  LOWER,
  mixed,
  type Rng,
  randomB64,
  rngFor,
  UPPER_ALNUM,
} from './gen.ts'
import type { LookAlike } from './types.ts'

/**
 * Strings that look like secrets and are not: CSS classes and words that start like a key prefix,
 * placeholders, documented example keys, provider object ids, hashes, digests, public keys and
 * publishable keys, base64 of ordinary text. No rule may redact any of them.
 */

export const WORDS =
  'button nav card primary secondary header footer modal tooltip badge spinner grid column row panel ' +
  'order refund customer invoice warehouse courier parcel ticket status review coffee shops garden ' +
  'plan tier usage settings profile account theme layout sidebar banner avatar'

const words = WORDS.split(' ')
const word = (r: Rng) => r.pick(words)
const cap = (s: string) => s[0]!.toUpperCase() + s.slice(1)
const SENTENCES = [
  'The quick brown fox jumps over the lazy dog',
  'Refund approved for order A17, parcel arrives Tuesday',
  'Please review the invoice before the end of the month',
  'Our warehouse in Lyon ships every weekday at noon',
  'Customer asked to change the delivery address',
  'Thanks for your patience, the courier is on the way',
  'Status: pending review by the store manager',
  'Summary of the conversation so far: refund requested',
  'Meeting notes: agree on the return window of 30 days',
  'The garden center opens at nine on Saturdays',
  'Weekly report for the support team, all tickets closed',
  'Hello world from the agent test suite',
]

function uuid(r: Rng): string {
  const h = chars(r, HEX, 32)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[r.int(4)]}${h.slice(17, 20)}-${h.slice(20, 32)}`
}

function many(prefix: string, n: number, make: (r: Rng, i: number) => string): LookAlike[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `${prefix}-${i}`,
    text: make(rngFor('look-alike', prefix, i), i),
  }))
}

function fixed(prefix: string, texts: string[]): LookAlike[] {
  return texts.map((text, i) => ({ id: `${prefix}-${i}`, text }))
}

export const MAIN_LOOK_ALIKES: readonly LookAlike[] = [
  ...many('css-sk-class', 12, (r, i) =>
    i % 2 ? `<div class="sk-${word(r)}-${word(r)}">` : `.sk-${word(r)}-${word(r)}-${word(r)} { margin: 0 }`,
  ),
  ...fixed('sk-inside-word', [
    'risk-free trial',
    'task-runner config',
    'disk-usage report',
    'ask-me-anything thread',
    'desk-lamp order',
    'whisk-eggs step',
    'brisk-walk-every-morning-before-work',
    'kiosk-mode-enabled-for-the-lobby-screen',
  ]),
  ...many('basic-word', 8, (r) => `Basic ${cap(word(r))} is included in the ${word(r)} tier`),
  ...fixed('basic-prose', [
    'Basic authentication is disabled for this endpoint',
    'Basic',
    'WWW-Authenticate: Basic realm="Access to the staging site"',
  ]),
  ...many('xoxo-word', 6, (r) => `xoxo-${word(r)}-${word(r)}`),
  ...fixed('placeholder', [
    'YOUR_API_KEY',
    'OPENAI_API_KEY=YOUR_API_KEY',
    'Authorization: Bearer <token>',
    'Authorization: Bearer $TOKEN',
    'Authorization: Bearer $' + '{process.env.API_TOKEN}',
    'api_key="$' + '{OPENAI_API_KEY}"',
    'sk-...',
    'sk-proj-...',
    'ghp_...',
    '<your-token-here>',
    '{{ secrets.NPM_TOKEN }}',
    'token: $' + '{{ secrets.GITHUB_TOKEN }}',
    'password: $' + '{DB_PASSWORD}',
    'export OPENAI_API_KEY=',
    'process.env.STRIPE_SECRET_KEY',
    'os.environ["ANTHROPIC_API_KEY"]',
    'curl -u "$USER:$PASS" https://api.example.com',
    'postgres://localhost:5432/app',
    'postgres://app@db.internal:5432/app',
    'redis://localhost:6379/0',
    'api_key: null',
    '"password": ""',
    'Cookie: <session cookie>',
  ]),
  ...fixed('aws-documented-example', [
    'AK' + 'IAIOSFODNN7EXAMPLE',
    'wJalrXUtnFEMI/K7MDENG/bPxRfiCY' + 'EXAMPLEKEY',
    `aws_access_key_id = AK${'IA'}IOSFODNN7EXAMPLE`,
    `aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCY${'EXAMPLEKEY'}`,
    'AK' + 'IAI44QH8DHBEXAMPLE',
    'je7MtGbClwBF/2Zp9Utk/h3yCo8nvb' + 'EXAMPLEKEY',
  ]),
  ...fixed('query-param', [
    '?key=coffee+shops',
    'https://maps.example.com/search?key=coffee+shops&near=Lyon',
    'max_tokens=1024',
    'max_completion_tokens=4096',
    '?sort=asc&limit=20&page=3',
    'tokens=512',
    'token_count: 2048',
    '?q=secret+garden+tickets',
    'https://example.com/reset?step=2&lang=fr',
    'grant_type=client_credentials&scope=read',
  ]),
  ...many('uuid', 10, (r) => uuid(r)),
  ...many('git-sha', 8, (r) => chars(r, HEX, 40)),
  ...many('short-sha', 4, (r) => `commit ${chars(r, HEX, 7)}`),
  ...many('sha256-hex', 5, (r) =>
    createHash('sha256')
      .update(mixed(r, ALNUM, 20))
      .digest('hex'),
  ),
  ...many('md5-hex', 4, (r) =>
    createHash('md5')
      .update(mixed(r, ALNUM, 20))
      .digest('hex'),
  ),
  ...many(
    'docker-digest',
    4,
    (r) =>
      `node@sha256:${createHash('sha256')
        .update(mixed(r, ALNUM, 20))
        .digest('hex')}`,
  ),
  ...many(
    'npm-integrity',
    5,
    (r) =>
      `"integrity": "sha512-${createHash('sha512')
        .update(mixed(r, ALNUM, 20))
        .digest('base64')}"`,
  ),
  ...many(
    'sri-hash',
    3,
    (r) =>
      `integrity="sha384-${createHash('sha384')
        .update(mixed(r, ALNUM, 20))
        .digest('base64')}"`,
  ),
  ...many('base64-text', 12, (_r, i) => b64(SENTENCES[i]!)),
  ...many('base64url-text', 4, (_r, i) => b64url(SENTENCES[i + 4]!)),
  ...many('chatcmpl-id', 5, (r) => `chatcmpl-${mixed(r, ALNUM, 29)}`),
  ...many('call-id', 5, (r) => `call_${mixed(r, ALNUM, 24)}`),
  ...many('anthropic-msg-id', 4, (r) => `msg_01${mixed(r, ALNUM, 22)}`),
  ...many('anthropic-tool-id', 4, (r) => `toolu_01${mixed(r, ALNUM, 22)}`),
  ...many('anthropic-request-id', 3, (r) => `req_011C${mixed(r, ALNUM, 20)}`),
  ...many('responses-id', 3, (r) => `resp_${chars(r, HEX, 48)}`),
  ...many('function-call-id', 2, (r) => `fc_${chars(r, HEX, 48)}`),
  ...many('openai-file-id', 3, (r) => `file-${mixed(r, ALNUM, 22)}`),
  ...many('openai-batch-id', 2, (r) => `batch_${chars(r, HEX, 32)}`),
  ...many('assistants-ids', 4, (r, i) => `${['run_', 'thread_', 'asst_', 'vs_'][i]}${mixed(r, ALNUM, 24)}`),
  ...many('openai-org-id', 2, (r) => `org-${mixed(r, ALNUM, 24)}`),
  ...many('openai-project-id', 2, (r) => `proj_${mixed(r, ALNUM, 24)}`),
  ...many('ulid', 3, (r) => `01J${chars(r, '0123456789ABCDEFGHJKMNPQRSTVWXYZ', 23)}`),
  ...many(
    'stripe-object-id',
    6,
    (r, i) => `${['cus_', 'pi_', 'ch_', 'evt_', 'in_', 'sub_'][i]}${mixed(r, ALNUM, i < 1 ? 14 : 24)}`,
  ),
  ...many('stripe-publishable', 4, (r, i) => `${i < 2 ? 'pk_live_' : 'pk_test_'}${mixed(r, ALNUM, 99)}`),
  ...many('supabase-publishable', 2, (r) => `sb_publishable_${mixed(r, ALNUM, 31)}`),
  ...many(
    'mapbox-public-token',
    2,
    (r) => `pk.${b64url(`{"u":"acme-maps","a":"${chars(r, LOWER, 25)}"}`)}.${mixed(r, ALNUM, 22)}`,
  ),
  ...many('slack-ids', 4, (r, i) => `${['C', 'U', 'T', 'W'][i]}${mixed(r, UPPER_ALNUM, 10)}`),
  ...many('age-public-key', 2, (r) => `age1${chars(r, BECH32, 58)}`),
  ...many(
    'ssh-public-key',
    3,
    (r) => `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${randomB64(r, 32).replace(/=+$/, '')} dev@laptop`,
  ),
  ...many('pem-public', 2, (r, i) => {
    const label = i ? 'PUBLIC KEY' : 'CERTIFICATE'
    return `-----BEGIN ${label}-----\n${randomB64(r, 120)
      .match(/.{1,64}/g)!
      .join('\n')}\n-----END ${label}-----`
  }),
  ...fixed('model-name', [
    'gpt-4o-2024-08-06',
    'claude-3-5-sonnet-20241022',
    'gemini-2.0-flash-001',
    'ft:gpt-4o-mini-2024-07-18:acme::9xYzAbCd',
    'text-embedding-3-large',
  ]),
  ...fixed('secret-word-prose', [
    'The secret to good pasta is salt.',
    'Reset your password from the settings page.',
    'Password: at least 12 characters, one digit and one symbol',
    'Token budget: 4096 tokens per request',
    'Bearer tokens expire after one hour.',
    'Use an API key from the dashboard to authenticate.',
    'the key is under the mat',
    'Authorization header missing',
    'Set-Cookie header was not sent',
    'secret_santa_2024',
    'password reset link sent to the customer',
    'the api_key parameter is required',
  ]),
  ...fixed('file-path', [
    '~/.ssh/id_rsa.pub',
    '~/.aws/credentials',
    '/etc/ssl/private/',
    '.env.example',
    'src/auth/token-refresh.ts',
    'C:\\Users\\dev\\.npmrc',
  ]),
  ...fixed('identifier', [
    'handleAuthorizationTokenRefresh',
    'getApiKeyFromEnvironment',
    'SECRET_KEY_BASE',
    'PASSWORD_MIN_LENGTH=12',
    'MAX_TOKENS=1024',
    'TOKEN_TTL_SECONDS=3600',
    'API_KEY_HEADER=x-api-key',
    'AUTH_TOKEN_ISSUER=https://auth.example.com',
  ]),
  ...many(
    'misc-values',
    10,
    (r, i) =>
      [
        `+33 6 ${chars(r, DIGITS, 2)} ${chars(r, DIGITS, 2)} ${chars(r, DIGITS, 2)} ${chars(r, DIGITS, 2)}`,
        `2001:db8:${chars(r, HEX, 4)}::${chars(r, HEX, 4)}`,
        `${chars(r, HEX, 2)}:${chars(r, HEX, 2)}:${chars(r, HEX, 2)}:${chars(r, HEX, 2)}:${chars(r, HEX, 2)}:${chars(r, HEX, 2)}`,
        `v${r.int(9)}.${r.int(30)}.${r.int(30)}`,
        new Date(Date.UTC(2025, r.int(12), 1 + r.int(28))).toISOString(),
        `#${chars(r, HEX, 6)}`,
        `--sk-color-${word(r)}: #${chars(r, HEX, 6)};`,
        `order A${chars(r, DIGITS, 6)}`,
        `https://github.com/acme/app/commit/${chars(r, HEX, 40)}`,
        `data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA${randomB64(r, 45)}`,
      ][i]!,
  ),
  ...many('uuid-in-url', 4, (r) => `https://api.example.com/v1/orders/${uuid(r)}/items`),
]
