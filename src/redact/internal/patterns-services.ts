import type { PatternRule } from '../types.ts'

/**
 * Tokens of code hosts, clouds, payment and messaging services: what a tool-using agent passes around
 * (a GitHub tool, a Slack notifier, a Stripe refund). Prefixed formats first; they are precise.
 */
export const SERVICE_PATTERNS: readonly PatternRule[] = [
  {
    id: 'aws-access-key-id',
    hint: ['AKIA', 'ASIA', 'ABIA', 'ACCA'],
    pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b/,
  },
  {
    id: 'github-token',
    hint: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'],
    pattern: /\bgh[pousr]_[A-Za-z0-9]{36,255}\b/,
  },
  { id: 'github-pat', hint: 'github_pat_', pattern: /\bgithub_pat_[A-Za-z0-9_]{40,255}/ },
  { id: 'gitlab-token', hint: 'glpat-', pattern: /\bglpat-[A-Za-z0-9_-]{20,}/ },
  { id: 'npm-token', hint: 'npm_', pattern: /\bnpm_[A-Za-z0-9]{36}\b/ },
  {
    id: 'pypi-token',
    hint: 'pypi-',
    // A macaroon whose base64 always begins with the encoded `pypi.org` location.
    pattern: /\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}/,
  },
  { id: 'slack-token', hint: 'xox', pattern: /\bxox[abposre]-[A-Za-z0-9-]{10,}/ },
  { id: 'slack-app-token', hint: 'xapp-', pattern: /\bxapp-\d-[A-Za-z0-9-]{10,}/ },
  {
    id: 'slack-webhook',
    hint: 'hooks.slack.com',
    // The path is the credential; the host stays so the record still says what it was.
    pattern:
      /(?<pre>\bhttps?:\/\/hooks\.slack\.com\/)(?<secret>(?:services|workflows|triggers)\/[A-Za-z0-9_/+-]{10,})/,
  },
  {
    id: 'discord-webhook',
    hint: 'discord',
    pattern:
      /(?<pre>\bhttps?:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/\d+\/)(?<secret>[A-Za-z0-9_-]{20,})/,
  },
  {
    id: 'discord-bot-token',
    // No literal prefix: base64 of the bot's user id (starts M, N or O), a timestamp, an HMAC.
    pattern: /\b[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_-])/,
  },
  {
    id: 'telegram-bot-token',
    hint: ':AA',
    // `(?<!\d)` rather than `\b`: the token follows `bot` directly in `api.telegram.org/bot<token>/`.
    pattern: /(?<!\d)\d{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])/,
  },
  { id: 'stripe-key', hint: ['_live_', '_test_'], pattern: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}/ },
  { id: 'stripe-webhook-secret', hint: 'whsec_', pattern: /\bwhsec_[A-Za-z0-9+/=]{24,}/ },
  { id: 'sendgrid-key', hint: 'SG.', pattern: /\bSG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}/ },
  { id: 'twilio-api-key', hint: 'SK', pattern: /\bSK[0-9a-fA-F]{32}\b/ },
  { id: 'mailgun-key', hint: 'key-', pattern: /\bkey-[0-9a-f]{32}\b/ },
  { id: 'shopify-token', hint: 'shp', pattern: /\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b/ },
  { id: 'digitalocean-token', hint: '_v1_', pattern: /\bdo[opr]_v1_[a-f0-9]{64}\b/ },
  { id: 'linear-key', hint: 'lin_api_', pattern: /\blin_api_[A-Za-z0-9]{40}\b/ },
  { id: 'notion-token', hint: 'ntn_', pattern: /\bntn_[A-Za-z0-9]{40,}/ },
  { id: 'sentry-token', hint: 'sntry', pattern: /\bsntry[su]_[A-Za-z0-9_=+/]{40,}/ },
  { id: 'postman-key', hint: 'PMAK-', pattern: /\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b/ },
]
