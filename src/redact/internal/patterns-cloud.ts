import type { PatternRule } from '../types.ts'
import { isPlaceholder, isValidBech32, looksRandom, randomAfter } from './validators.ts'

/**
 * Credentials of clouds, hosting platforms, secret managers and observability services: what an
 * infrastructure agent reads from a config file or an environment dump.
 */
export const CLOUD_PATTERNS: readonly PatternRule[] = [
  {
    id: 'aws-access-key-id',
    hint: ['AKIA', 'ASIA', 'ABIA', 'ACCA'],
    // AWS's documented example id (`AKIAIOSFODNN7EXAMPLE`) is a placeholder, not a key.
    pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b/,
    validate: randomAfter(/^A[KSBC][IC]A/),
  },
  {
    id: 'azure-client-secret',
    hint: 'Q~',
    // Entra ID (Azure AD) application secrets: three characters, a digit, `Q~`, 31 to 34 more. A `.`
    // may follow (the end of a sentence, or of a secret cut short), since a secret's own characters
    // include it: no lookahead may depend on whether the last character drawn was a dot.
    pattern: /(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~-])/,
    validate: randomAfter(/^.{4}Q~/),
  },
  {
    id: 'azure-sas-url',
    hint: ['.core.windows.net', '.core.chinacloudapi.cn', '.core.usgovcloudapi.net'],
    // A storage URL with a shared access signature is a credential as a whole (Azure calls it the SAS
    // URI): it is replaced from the scheme to the end of its `sig` value. Its length varies with how many
    // of the signature's characters needed percent-encoding, so keeping the account and path around a
    // shorter marker would move the text that follows with every new signature.
    pattern:
      /\bhttps?:\/\/[a-z0-9-]{3,63}\.(?:blob|file|queue|table|dfs|web)\.core\.(?:windows\.net|chinacloudapi\.cn|usgovcloudapi\.net)(?:[:/][^\s?#"'`<>\\]*)?\?(?:[^\s#"'`<>\\]*?&)?sig=[^&#;\s"'`<>\\]+/i,
    validate: (s) => {
      const sig = s.slice(s.search(/[?&]sig=[^&]*$/i) + 5)
      return !isPlaceholder(sig) && looksRandom(sig.replace(/%[0-9A-Fa-f]{2}/g, '+'), { minLength: 16 })
    },
  },
  {
    id: 'azure-devops-pat',
    hint: 'AZDO',
    // The 84-character format: 52 random characters, a fixed signature, `AZDO` at offset 76.
    pattern: /\b[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4}\b/,
    validate: (s) => !isPlaceholder(s) && looksRandom(s.slice(0, 52)),
  },
  {
    id: 'cloudflare-origin-ca-key',
    hint: 'v1.0-',
    pattern: /\bv1\.0-[a-f0-9]{24}-[a-f0-9]{146}\b/,
    validate: randomAfter(/^v1\.0-/),
  },
  {
    id: 'firebase-fcm-key',
    hint: ':APA91b',
    // Legacy Cloud Messaging server keys: `AAAA`, 7 characters, `:APA91b`, 134 characters.
    pattern: /\bAAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{120,}/,
    validate: randomAfter(/^AAAA[A-Za-z0-9_-]{7}:APA91b/),
  },
  {
    id: 'vault-token',
    hint: 'hv',
    // HashiCorp Vault 1.10+ service, batch and recovery tokens. The older `s.` + 24 characters has no
    // distinctive prefix; it is caught as a `VAULT_TOKEN=` assignment only.
    pattern: /\bhv[sbr]\.[A-Za-z0-9_-]{24,}/,
    validate: randomAfter(/^hv[sbr]\.(?:CAES)?/),
  },
  {
    id: 'doppler-token',
    hint: 'dp.',
    // Personal, CLI, service-account, SCIM and audit tokens; service tokens name their config.
    pattern: /\bdp\.(?:pt|ct|sa|scim|audit|st(?:\.[a-z0-9_-]{2,35})?)\.[A-Za-z0-9]{40,44}(?![A-Za-z0-9])/,
    validate: (s) => !isPlaceholder(s) && looksRandom(s.slice(s.lastIndexOf('.') + 1)),
  },
  {
    id: 'age-secret-key',
    hint: 'AGE-SECRET-KEY-',
    // Bech32 with a checksum. The prefix is unambiguous, so a body whose checksum fails (a key cut
    // short or mistyped in a log) is still hidden when it looks random; only placeholders are left.
    pattern: /\bAGE-SECRET-KEY-(?:PQ-)?1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58,}/,
    validate: (secret) => isValidBech32(secret) || randomAfter(/^AGE-SECRET-KEY-(?:PQ-)?1/)(secret),
  },
  {
    id: 'onepassword-token',
    hint: 'ops_eyJ',
    // Service-account tokens: `ops_` and base64 JSON.
    pattern: /\bops_eyJ[A-Za-z0-9+/=_-]{100,}/,
    validate: randomAfter(/^ops_eyJ/),
  },
  {
    id: 'digitalocean-token',
    hint: '_v1_',
    pattern: /\bdo[opr]_v1_[a-f0-9]{64}\b/,
    validate: randomAfter(/^do[opr]_v1_/),
  },
  {
    id: 'heroku-token',
    hint: 'HRKU-',
    pattern: /\bHRKU-[A-Za-z0-9_-]{30,}/,
    validate: randomAfter(/^HRKU-(?:AA)?/),
  },
  {
    id: 'vercel-token',
    hint: 'vc',
    pattern: /\bvc[pikar]_[A-Za-z0-9]{20,}/,
    validate: randomAfter(/^vc[a-z]_/),
  },
  { id: 'netlify-token', hint: 'nfp_', pattern: /\bnfp_[A-Za-z0-9]{30,}\b/, validate: randomAfter(/^nfp_/) },
  {
    id: 'fly-token',
    hint: ['fo1_', 'fm1', 'fm2'],
    // Fly.io org tokens (`fo1_`) and macaroon tokens (`fm2_…`, sent as `FlyV1 fm2_…`). The scheme goes
    // with the token, as `FlyV1` only ever precedes one: a stream cut inside it then falls inside the span.
    pattern: /\b(?:fo1_[A-Za-z0-9_-]{40,}|(?:FlyV1 )?fm[12][ar]?_[A-Za-z0-9+/=_-]{50,})/,
    validate: randomAfter(/^(?:fo1_|(?:FlyV1 )?fm[12][ar]?_)/),
  },
  { id: 'render-key', hint: 'rnd_', pattern: /\brnd_[A-Za-z0-9]{20,}\b/, validate: randomAfter(/^rnd_/) },
  {
    id: 'planetscale-token',
    hint: 'pscale_',
    pattern: /\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,64}/,
    validate: randomAfter(/^pscale_[a-z]+_/),
  },
  { id: 'neon-key', hint: 'napi_', pattern: /\bnapi_[A-Za-z0-9]{40,}\b/, validate: randomAfter(/^napi_/) },
  {
    id: 'supabase-token',
    hint: ['sbp_', 'sb_secret_'],
    // Personal access tokens (`sbp_`, scoped `sbp_fc…`, OAuth `sbp_oauth_`) and project secret keys
    // (`sb_secret_`). Publishable keys (`sb_publishable_`) are public by design and left alone.
    pattern: /\b(?:sbp_(?:oauth_|v0_)?[a-z0-9]{40,}|sb_secret_[A-Za-z0-9_-]{20,})/,
    validate: randomAfter(/^(?:sbp_(?:oauth_|v0_)?|sb_secret_)/),
  },
  {
    id: 'newrelic-key',
    hint: ['NRAK-', 'NRAA-', 'NRII-', 'NRIQ-', 'NRJS-', 'NRRA-', 'NRAL'],
    // User keys (`NRAK-`), legacy admin, Insights insert and query keys, browser keys, and license
    // (ingest) keys: 36 hex characters then `NRAL`.
    // Not `\b` at the end: a key may end with `-`, and a word boundary there would cut it off.
    pattern: /\b(?:NR(?:AK|AA|II|IQ|JS|RA)-[A-Za-z0-9_-]{19,40}(?![A-Za-z0-9_-])|[a-fA-F0-9]{36}NRAL\b)/,
    validate: (s) => !isPlaceholder(s) && looksRandom(s.endsWith('NRAL') ? s.slice(0, 36) : s.slice(5)),
  },
  {
    id: 'grafana-token',
    hint: ['glc_', 'glsa_'],
    // Grafana Cloud access policy tokens (`glc_` + base64 JSON) and service-account tokens.
    pattern: /\b(?:glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})/,
    validate: randomAfter(/^(?:glc_(?:eyJ)?|glsa_)/),
  },
  {
    id: 'dynatrace-token',
    hint: 'dt0',
    pattern: /\bdt0[a-z]\d{2}\.[A-Z0-9]{24}\.[A-Z0-9]{64}\b/,
    validate: (s) => !isPlaceholder(s) && looksRandom(s.slice(s.lastIndexOf('.') + 1)),
  },
  {
    id: 'alibaba-access-key-id',
    hint: 'LTAI',
    // Alibaba Cloud AccessKey ids: `LTAI` and 12 to 20 letters and digits.
    pattern: /\bLTAI[A-Za-z0-9]{12,20}\b/,
    validate: randomAfter(/^LTAI/),
  },
]
