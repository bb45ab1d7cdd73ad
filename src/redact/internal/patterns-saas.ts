import type { PatternRule } from '../types.ts'
import { isPlaceholder, looksRandom, randomAfter } from './validators.ts'

/**
 * Tokens of payment, messaging and productivity services: what a tool-using agent passes around (a
 * Slack notifier, a Stripe refund, a Notion page update).
 */

/**
 * Slack tokens are `xox<kind>-`, then a numeric team, user or version segment, then random parts
 * (`xoxb-<team>-<bot>-<secret>`, `xoxe.xoxp-1-<secret>`). A word after `xoxo-` is a greeting.
 */
function isSlackToken(secret: string): boolean {
  if (isPlaceholder(secret)) return false
  const m = /^xox(?:e\.xox)?([a-z])-(.*)$/.exec(secret)
  if (!m) return false
  if (m[1] === 'd') return looksRandom(m[2]!)
  const parts = m[2]!.split('-').filter(Boolean)
  if (parts.length < 2 || !/^\d+$/.test(parts[0]!)) return false
  const random = parts.filter((p) => !/^\d+$/.test(p)).join('')
  return random.length === 0 ? parts.join('').length >= 20 : looksRandom(random)
}

/** The first part of a Discord bot token is the bot's user id (a snowflake) in base64. */
function isDiscordToken(secret: string): boolean {
  const id = Buffer.from(secret.slice(0, secret.indexOf('.')), 'base64url').toString('latin1')
  return /^\d{17,20}$/.test(id) && looksRandom(secret.slice(secret.lastIndexOf('.') + 1))
}

/** The last path segment (or `.`-separated part) of a credential must look random. */
function randomTail(secret: string): boolean {
  return !isPlaceholder(secret) && looksRandom(secret.slice(secret.search(/[^/.]*$/)))
}

export const SAAS_PATTERNS: readonly PatternRule[] = [
  {
    id: 'slack-token',
    hint: 'xox',
    // Bot, user, app-level, legacy, refresh, rotating (`xoxe.xoxp-`), client and cookie (`xoxd-`) tokens.
    pattern: /\bxox(?:[abposrc]|e(?:\.xox[bp])?)-[A-Za-z0-9-]{10,}|\bxoxd-[A-Za-z0-9%/+=_-]{20,}/,
    validate: isSlackToken,
  },
  {
    id: 'slack-app-token',
    hint: 'xapp-',
    pattern: /\bxapp-\d-[A-Za-z0-9-]{10,}/,
    validate: randomAfter(/^xapp-\d-[A-Z0-9]+-\d+-/),
  },
  {
    id: 'slack-webhook',
    hint: 'hooks.slack.com',
    // The path is the credential; the host stays so the record still says what it was.
    pattern:
      /(?<pre>\bhttps?:\/\/hooks\.slack\.com\/)(?<secret>(?:services|workflows|triggers)\/[A-Za-z0-9_/+-]{10,})/,
    validate: randomTail,
  },
  {
    id: 'discord-webhook',
    hint: 'discord',
    pattern:
      /(?<pre>\bhttps?:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/\d+\/)(?<secret>[A-Za-z0-9_-]{20,})/,
    validate: randomTail,
  },
  {
    id: 'discord-bot-token',
    // No literal prefix: base64 of the bot's user id (starts M, N or O), a timestamp, an HMAC.
    pattern: /\b[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_-])/,
    validate: isDiscordToken,
  },
  {
    id: 'telegram-bot-token',
    hint: ':AA',
    // `(?<!\d)` rather than `\b`: the token follows `bot` directly in `api.telegram.org/bot<token>/`.
    pattern: /(?<!\d)\d{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])/,
    validate: randomAfter(/^\d+:AA/),
  },
  {
    id: 'stripe-key',
    hint: ['_live_', '_test_'],
    // Secret and restricted keys; publishable keys (`pk_`) are public by design.
    pattern: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}/,
    validate: randomAfter(/^[sr]k_(?:live|test)_(?:51)?/),
  },
  {
    id: 'stripe-webhook-secret',
    hint: 'whsec_',
    pattern: /\bwhsec_[A-Za-z0-9+/=]{24,}/,
    validate: randomAfter(/^whsec_/),
  },
  {
    id: 'sendgrid-key',
    hint: 'SG.',
    pattern: /\bSG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}/,
    validate: randomTail,
  },
  { id: 'twilio-api-key', hint: 'SK', pattern: /\bSK[0-9a-fA-F]{32}\b/, validate: randomAfter(/^SK/) },
  { id: 'mailgun-key', hint: 'key-', pattern: /\bkey-[0-9a-f]{32}\b/, validate: randomAfter(/^key-/) },
  {
    id: 'mailchimp-key',
    hint: '-us',
    pattern: /\b[0-9a-f]{32}-us\d{1,2}\b/,
    validate: (s) => !isPlaceholder(s) && looksRandom(s.slice(0, 32)),
  },
  {
    id: 'brevo-key',
    hint: ['xkeysib-', 'xsmtpsib-'],
    pattern: /\bx(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}\b/,
    validate: randomAfter(/^x[a-z]+-/),
  },
  {
    id: 'resend-key',
    hint: 're_',
    pattern: /\bre_[A-Za-z0-9_]{28,}\b/,
    validate: randomAfter(/^re_/),
  },
  {
    id: 'shopify-token',
    hint: 'shp',
    pattern: /\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b/,
    validate: randomAfter(/^shp[a-z]{2}_/),
  },
  {
    id: 'square-token',
    hint: ['EAAA', 'sq0atp-', 'sq0csp-'],
    pattern: /\b(?:EAAA[A-Za-z0-9_-]{60}|sq0(?:atp|csp)-[A-Za-z0-9_-]{22,43})(?![A-Za-z0-9_-])/,
    validate: randomAfter(/^(?:EAAA|sq0[a-z]{3}-)/),
  },
  {
    id: 'facebook-token',
    hint: 'EAA',
    pattern: /\bEAA[A-Za-z0-9]{90,}/,
    validate: randomAfter(/^EAA/),
  },
  {
    id: 'braintree-token',
    hint: 'access_token$',
    pattern: /\baccess_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[a-f0-9]{32}\b/,
    validate: randomTail,
  },
  {
    id: 'plaid-token',
    hint: 'access-',
    pattern:
      /\baccess-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/,
    validate: randomAfter(/^access-[a-z]+-/),
  },
  {
    id: 'notion-token',
    hint: ['ntn_', 'secret_'],
    // Current integration tokens (`ntn_`) and the legacy format (`secret_` and 43 characters).
    pattern: /\b(?:ntn_[A-Za-z0-9]{40,}|secret_[A-Za-z0-9]{43}\b)/,
    validate: randomAfter(/^(?:ntn_|secret_)/),
  },
  {
    id: 'figma-token',
    hint: 'figd_',
    pattern: /\bfigd_[A-Za-z0-9_-]{30,}/,
    validate: randomAfter(/^figd_/),
  },
  {
    id: 'airtable-token',
    hint: 'pat',
    pattern: /\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b/,
    validate: randomTail,
  },
  {
    id: 'hubspot-token',
    hint: ['pat-na', 'pat-eu'],
    pattern: /\bpat-(?:na|eu)\d-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/,
    validate: randomAfter(/^pat-[a-z]{2}\d-/),
  },
  {
    id: 'contentful-token',
    hint: 'CFPAT-',
    pattern: /\bCFPAT-[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/,
    validate: randomAfter(/^CFPAT-/),
  },
  {
    id: 'mapbox-secret-token',
    hint: 'sk.eyJ',
    pattern: /\bsk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}/,
    validate: randomTail,
  },
  {
    id: 'dropbox-token',
    hint: 'sl.',
    pattern: /\bsl\.(?:u\.)?[A-Za-z0-9_-]{130,}/,
    validate: randomAfter(/^sl\.(?:u\.)?/),
  },
  {
    id: 'shippo-token',
    hint: 'shippo_',
    pattern: /\bshippo_(?:live|test)_[a-f0-9]{40}\b/,
    validate: randomAfter(/^shippo_[a-z]+_/),
  },
  {
    id: 'typeform-token',
    hint: 'tfp_',
    pattern: /\btfp_[A-Za-z0-9_.=-]{40,}/,
    validate: randomAfter(/^tfp_/),
  },
  {
    id: 'readme-key',
    hint: 'rdme_',
    // ReadMe API keys: `rdme_` and 70 lower-case letters and digits.
    pattern: /\brdme_[a-z0-9]{70}\b/,
    validate: randomAfter(/^rdme_/),
  },
  {
    id: 'prefect-key',
    hint: 'pnu_',
    // Prefect Cloud API keys: `pnu_` and 36 letters and digits.
    pattern: /\bpnu_[A-Za-z0-9]{36}\b/,
    validate: randomAfter(/^pnu_/),
  },
]
