/**
 * Sensitive keys: a value under one of these keys is replaced whole, whatever JSON it is. Keys are
 * compared case-folded with only letters and digits kept, so `API.KEY`, `x api key`, `X-Api-Key` and
 * `x_api_key` are one key (the AgentCase 0.1 reference baseline does the same).
 */

/**
 * The marker written in place of a value under a sensitive key.
 *
 * @example
 * redactDocument({ password: 'x' }).value.password === SENSITIVE_MARKER // true
 */
export const SENSITIVE_MARKER = '[REDACTED:sensitive-key]'

/** The rule id of sensitive-key replacements. */
export const SENSITIVE_RULE = 'sensitive-key'

/**
 * Compares keys the way the reference does: lower case, letters and digits only.
 *
 * @example
 * normalizeKey('X-Api-Key') // 'xapikey'
 * normalizeKey('set_Cookie') // 'setcookie'
 */
export function normalizeKey(key: string): string {
  // Fast path for the usual already-normal key (`content`, `role`): no allocation.
  if (/^[a-z0-9]*$/.test(key)) return key
  return key.toLowerCase().replace(/[^a-z0-9]/g, '')
}

/**
 * Exact keys (normalized). The reference baseline first, then header names of providers and clouds.
 * Exact, not substring: `token_count`, `max_tokens`, `secretary` and `authorization_mode` are data.
 */
export const DEFAULT_SENSITIVE_KEYS: readonly string[] = [
  // AgentCase 0.1 baseline
  'authorization',
  'proxyauthorization',
  'apikey',
  'xapikey',
  'token',
  'accesstoken',
  'refreshtoken',
  'password',
  'passwd',
  'secret',
  'clientsecret',
  'cookie',
  'setcookie',
  'connectionstring',
  // provider and cloud header names
  'xgoogapikey',
  'openaiapikey',
  'anthropicapikey',
  'ocpapimsubscriptionkey',
  'xfunctionskey',
  'xauthtoken',
  'xaccesstoken',
  'xamzsecuritytoken',
  'xvercelprotectionbypass',
  'xcsrftoken',
  'xxsrftoken',
  'csrftoken',
  // the like
  'privatekey',
  'privatekeyid',
  'sessiontoken',
  'idtoken',
  'authtoken',
  'apitoken',
  'apisecret',
  'secretkey',
  'secretaccesskey',
  'clientkey',
  'passphrase',
  'pwd',
  'credentials',
  'webhooksecret',
  'signingsecret',
  'serviceaccountkey',
  'privatetoken',
  'authkey',
  'accesskey',
  'masterkey',
  'encryptionkey',
  'signingkey',
  'licensekey',
  'credential',
  'cookies',
  'auths', // Docker's config.json: registry → { auth: base64(user:password) }
  'githuboauth', // Composer's auth.json
  // tokens named for their service (`GITHUB_TOKEN` in an env object, `hfToken` in a config)
  'githubtoken',
  'ghtoken',
  'gitlabtoken',
  'npmtoken',
  'pypitoken',
  'hftoken',
  'huggingfacetoken',
  'slacktoken',
  'vaulttoken',
  'dopplertoken',
  'figmatoken',
  'xfigmatoken',
  'xvaulttoken',
  'circletoken',
  'verceltoken',
]

/**
 * Suffixes that make a key sensitive whatever comes before (`OPENAI_API_KEY`, `db_password`,
 * `stripeWebhookSecret`). `token` is not among them on purpose: `nextPageToken`, `eos_token` and
 * `continuation_token` are data a replay needs.
 */
export const DEFAULT_SENSITIVE_SUFFIXES: readonly string[] = [
  'apikey',
  'secretkey',
  'password',
  'passwd',
  'passphrase',
  'secret',
  'accesstoken',
  'refreshtoken',
  'authtoken',
  'sessiontoken',
  'securitytoken',
  'apitoken',
  'bottoken',
  'bearertoken',
  'privatekey',
  'connectionstring',
  'privatetoken',
  'oauthtoken',
  'deploytoken',
  'signingkey',
  'encryptionkey',
  'masterkey',
  'licensekey',
]

/**
 * Builds the key test for a redactor. The answer per distinct key is memoized: documents repeat the
 * same few hundred keys millions of times.
 *
 * @example
 * const isSensitive = createKeyMatcher(['x-tenant-secret'])
 * isSensitive('X_TENANT_SECRET') // true
 */
export function createKeyMatcher(extra: readonly string[], useDefaults = true): (key: string) => boolean {
  const exact = new Set<string>(useDefaults ? DEFAULT_SENSITIVE_KEYS : [])
  for (const k of extra) {
    const n = normalizeKey(k)
    if (n) exact.add(n)
  }
  const suffixes = useDefaults ? DEFAULT_SENSITIVE_SUFFIXES : []
  const memo = new Map<string, boolean>()
  return (key) => {
    let hit = memo.get(key)
    if (hit === undefined) {
      const n = normalizeKey(key)
      // A key the redactor already replaced (`[REDACTED:openai-key]`) names a rule, not a secret.
      hit =
        !key.includes('[REDACTED:') &&
        (exact.has(n) || suffixes.some((s) => n.length > s.length && n.endsWith(s)))
      if (memo.size < 10_000) memo.set(key, hit)
    }
    return hit
  }
}
