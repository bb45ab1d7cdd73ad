/**
 * A corpus of fake secrets, one per format crashlab redacts, and a document that plants a secret
 * everywhere a run can carry one. Writer tests (cassettes, AgentCase export, reports) import both to
 * prove that nothing they write leaks.
 *
 * Every value is built at run time from a prefix split in two and seeded pseudo-random characters, so
 * that this file holds no string a secret scanner (GitHub push protection, gitleaks) would flag, and the
 * values look like real keys (varied characters, right lengths) rather than `AAAA…`.
 */
import { base62, crc32 } from './internal/validators.ts'

export interface CorpusEntry {
  /** A name for the format, unique in the corpus. */
  id: string
  /** The text as it would appear (for some formats with its context: `Bearer …`, `password=…`). */
  secret: string
  /** The part that must never be written; the whole `secret` for formats that have no context. */
  core: string
  /** The rule id the redactor and the scanner report for it. */
  rule: string
}

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'
const LOWER = 'abcdefghijklmnopqrstuvwxyz'
const DIGITS = '0123456789'
const B62 = UPPER + LOWER + DIGITS
const HEX = '0123456789abcdef'

/** Seeded characters (a 32-bit LCG): the corpus is the same on every run and every machine. */
function fake(seed: number, length: number, alphabet = B62): string {
  let state = (seed * 2654435761) >>> 0
  let out = ''
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    out += alphabet[(state >>> 8) % alphabet.length]
  }
  return out
}

function entry(id: string, secret: string, rule = id, core = secret): CorpusEntry {
  return { id, secret, core, rule }
}

const b64url = (s: string): string => Buffer.from(s).toString('base64url')
const jwt = `${b64url('{"alg":"HS256","typ":"JWT"}')}.${b64url('{"sub":"user-42","iat":1735689600}')}.${fake(16, 43, `${B62}-_`)}`
const pemBody = fake(17, 64, `${B62}+/`)
const pgPassword = fake(18, 20)
const bearer = fake(19, 40, `${B62}-._`)
const basic = Buffer.from(`svc-user:${fake(20, 16)}`).toString('base64')
const awsSecret = fake(21, 40, `${B62}+/`)
const azureKey = `${fake(22, 86, `${B62}+/`)}==`
const slackPath = fake(23, 24)
const discordHook = fake(24, 68, `${B62}-_`)
const accessToken = fake(25, 32)
const dbPassword = fake(26, 18)
/** GitHub and npm tokens end with the base62 CRC-32 of their 30 random characters, as real ones do. */
const checksummed = (prefix: string, seed: number): string => {
  const body = fake(seed, 30)
  return `${prefix}${body}${base62(crc32(body), 6)}`
}
/** A Discord bot token starts with the bot's numeric user id in base64. */
const discordId = Buffer.from(`1${fake(49, 18, DIGITS)}`).toString('base64url')

/** 51 formats: AI providers first, then code hosts, clouds and services, then the generic ones. */
export const SECRET_CORPUS: CorpusEntry[] = [
  entry('openai-key', `sk-${fake(1, 48)}`),
  entry('openai-project-key', `sk-${'proj'}-${fake(2, 74, `${B62}_-`)}A`, 'openai-key'),
  entry('anthropic-key', `sk-${'ant'}-api03-${fake(3, 93, `${B62}_-`)}AA`),
  entry('groq-key', `gs${'k_'}${fake(4, 52)}`),
  entry('xai-key', `xa${'i-'}${fake(5, 80)}`),
  entry('huggingface-token', `h${'f_'}${fake(6, 34)}`),
  entry('replicate-token', `r${'8_'}${fake(7, 37)}`),
  entry('perplexity-key', `pp${'lx-'}${fake(8, 48)}`),
  entry('langsmith-key', `lsv2${'_pt_'}${fake(9, 32, HEX)}_${fake(10, 10, HEX)}`),
  entry('pinecone-key', `pc${'sk_'}${fake(11, 70, `${B62}_`)}`),
  entry('tavily-key', `tv${'ly-'}dev-${fake(12, 32)}`),
  entry('google-api-key', `AI${'za'}Sy${fake(13, 33)}`),
  entry('google-oauth-token', `ya${'29.'}a0${fake(14, 100, `${B62}-_`)}`),
  entry('google-oauth-secret', `GOC${'SPX-'}${fake(15, 28, `${B62}-_`)}`),
  entry('databricks-token', `da${'pi'}${fake(27, 32, HEX)}`),
  entry('aws-access-key-id', `AK${'IA'}${fake(28, 16, UPPER + DIGITS)}`),
  entry('aws-session-key-id', `AS${'IA'}${fake(29, 16, UPPER + DIGITS)}`, 'aws-access-key-id'),
  entry('github-token', checksummed(`gh${'p_'}`, 30)),
  entry('github-oauth-token', checksummed(`gh${'o_'}`, 31), 'github-token'),
  entry('github-server-token', checksummed(`gh${'s_'}`, 32), 'github-token'),
  entry('github-pat', `github_${'pat_'}11${fake(33, 20)}_${fake(34, 59)}`),
  entry('gitlab-token', `gl${'pat-'}${fake(35, 20, `${B62}_-`)}`),
  entry('npm-token', checksummed(`np${'m_'}`, 36)),
  entry('pypi-token', `pypi-${'AgEIcHlwaS5vcmc'}${fake(37, 70, `${B62}_-`)}`),
  entry(
    'slack-bot-token',
    `xo${'xb-'}${fake(38, 12, DIGITS)}-${fake(39, 13, DIGITS)}-${fake(40, 24)}`,
    'slack-token',
  ),
  entry(
    'slack-user-token',
    `xo${'xp-'}${fake(41, 12, DIGITS)}-${fake(42, 13, DIGITS)}-${fake(43, 32)}`,
    'slack-token',
  ),
  entry(
    'slack-app-token',
    `xa${'pp-'}1-A${fake(44, 10, UPPER + DIGITS)}-${fake(45, 13, DIGITS)}-${fake(46, 64, HEX)}`,
  ),
  entry(
    'slack-webhook',
    `https://hooks.slack.com/services/T${fake(47, 8, UPPER + DIGITS)}/B${fake(48, 8, UPPER + DIGITS)}/${slackPath}`,
    'slack-webhook',
    slackPath,
  ),
  entry('discord-bot-token', `${discordId}.${fake(50, 6, `${B62}-_`)}.${fake(51, 38, `${B62}-_`)}`),
  entry(
    'discord-webhook',
    `https://discord.com/api/webhooks/${fake(52, 18, DIGITS)}/${discordHook}`,
    'discord-webhook',
    discordHook,
  ),
  entry('telegram-bot-token', `${fake(53, 10, '123456789')}:AA${fake(54, 33, `${B62}-_`)}`),
  entry('stripe-key', `sk_${'live_'}${fake(55, 24)}`),
  entry('stripe-restricted-key', `rk_${'live_'}${fake(56, 24)}`, 'stripe-key'),
  entry('stripe-webhook-secret', `wh${'sec_'}${fake(57, 32)}`),
  entry('sendgrid-key', `S${'G.'}${fake(58, 22, `${B62}-_`)}.${fake(59, 43, `${B62}-_`)}`),
  entry('twilio-api-key', `S${'K'}${fake(60, 32, HEX)}`),
  entry('mailgun-key', `ke${'y-'}${fake(61, 32, HEX)}`),
  entry('shopify-token', `shp${'at_'}${fake(62, 32, HEX)}`),
  entry('digitalocean-token', `do${'p_v1_'}${fake(63, 64, HEX)}`),
  entry('linear-key', `lin_${'api_'}${fake(64, 40)}`),
  entry('notion-token', `nt${'n_'}${fake(65, 46)}`),
  entry('sentry-token', `sntr${'ys_'}${fake(66, 60)}`),
  entry('postman-key', `PM${'AK-'}${fake(67, 24, HEX)}-${fake(68, 34, HEX)}`),
  entry('jwt', `ey${jwt.slice(2)}`),
  entry(
    'private-key',
    `-----BEGIN RSA ${'PRIVATE KEY'}-----\nMIIEow${pemBody}\n${fake(69, 64, `${B62}+/`)}\n-----END RSA ${'PRIVATE KEY'}-----`,
    'private-key',
    pemBody,
  ),
  entry('url-password', `postgres://admin:${pgPassword}@db.internal:5432/app`, 'url-password', pgPassword),
  entry('bearer-token', `Bearer ${bearer}`, 'bearer-token', bearer),
  entry('basic-auth', `Basic ${basic}`, 'basic-auth', basic),
  entry('aws-secret-key', `aws_secret_access_key=${awsSecret}`, 'aws-secret-key', awsSecret),
  entry(
    'azure-storage-key',
    `DefaultEndpointsProtocol=https;AccountName=acmestore;AccountKey=${azureKey};EndpointSuffix=core.windows.net`,
    'azure-storage-key',
    azureKey.slice(0, -2),
  ),
  entry(
    'query-secret',
    `https://api.example.com/v1/items?access_token=${accessToken}&page=2`,
    'query-secret',
    accessToken,
  ),
  entry('secret-assignment', `DB_PASSWORD=${dbPassword}`, 'secret-assignment', dbPassword),
]

/** The fields that look like secrets by name and are not; redaction must leave them as they are. */
export const FALSE_POSITIVE_FIELDS = {
  token_count: 1234,
  tokens: 42,
  max_tokens: 4096,
  input_tokens: 17,
  secretary: 'Miss Moneypenny',
  authorization_mode: 'oauth',
} as const

/**
 * A cassette-shaped document with `secret` planted in every place a run can carry one: request headers
 * (sensitive and not), a URL query, a JSON request body, nested arrays, SSE chunk `data` (inside a JSON
 * string), a `bodyText`, a tool result, an error message and a map key, next to the false-positive
 * fields that must survive redaction unchanged.
 *
 * @example
 * for (const { secret, core } of SECRET_CORPUS) {
 *   const text = canonicalStringify(redactDocument(plantSecrets(secret)).value)
 *   expect(text).not.toContain(core)
 * }
 */
export function plantSecrets(secret: string) {
  const said = `my key is ${secret}, keep it safe`
  const chunk = (content: string) => JSON.stringify({ choices: [{ index: 0, delta: { content } }] })
  return {
    format: 'crashlab.cassette',
    version: 1,
    creator: { name: 'crashlab', version: '0.0.0-test' },
    run: {
      agent: 'refund-bot',
      usage: { ...FALSE_POSITIVE_FIELDS },
      steps: [
        {
          index: 0,
          type: 'llm',
          provider: 'openai-chat',
          endpoint: 'chat.completions',
          request: {
            wire: {
              method: 'POST',
              url: `https://api.example.com/v1/chat/completions?ref=${secret}&mode=test`,
              headers: {
                authorization: `Bearer ${secret}`,
                'x-trace-note': said,
                'content-type': 'application/json',
              },
              body: {
                model: 'gpt-4o-mini',
                messages: [
                  { role: 'system', content: 'You are a refund assistant.' },
                  { role: 'user', content: said },
                ],
                metadata: { note: secret, nested: [[['first', [secret]]], { deeper: [secret] }] },
                ...FALSE_POSITIVE_FIELDS,
              },
              bodyText: JSON.stringify({ messages: [{ role: 'user', content: said }] }),
            },
            normalized: null,
          },
          response: {
            wire: {
              status: 200,
              headers: { 'content-type': 'text/event-stream' },
              body: null,
              bodyText: `data: ${chunk(said)}\n\ndata: [DONE]\n\n`,
              chunks: [
                { data: chunk('Sure. '), atMs: 1 },
                { data: chunk(said), atMs: 2 },
                { data: '[DONE]', atMs: 3 },
              ],
            },
            normalized: null,
            incomplete: false,
          },
          error: null,
        },
        {
          index: 1,
          type: 'tool',
          name: 'lookup_config',
          args: {
            query: said,
            headers: [['Authorization', secret]],
            pair: { name: 'X-Api-Key', value: secret },
          },
          result: { [secret]: 'a secret used as a key', output: said },
          sideEffects: false,
          error: {
            name: 'AuthenticationError',
            message: `Incorrect API key provided: ${secret}`,
            status: 401,
          },
        },
      ],
      ...FALSE_POSITIVE_FIELDS,
    },
  }
}
