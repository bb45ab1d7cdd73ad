import { describe, expect, it } from 'vitest'
import { createRedactor } from '../create-redactor.ts'
import { scanText } from '../scan-text.ts'
import { DEFAULT_PATTERNS } from './default-patterns.ts'
import { base62, crc32 } from './validators.ts'

/**
 * Every token family, built at test time from seeded characters (no whole token is written in this
 * file), is redacted under its own rule id, found by the scanner, and redacted to the same bytes when
 * the secret rotates (another seed, same format).
 */

const UP = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'
const LO = 'abcdefghijklmnopqrstuvwxyz'
const DIG = '0123456789'
const B62 = UP + LO + DIG
const HEX = '0123456789abcdef'
const B64URL = `${B62}_-`
const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l'

function rand(seed: number, length: number, alphabet = B62): string {
  let state = (seed * 2654435761) >>> 0
  let out = ''
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    out += alphabet[(state >>> 8) % alphabet.length]
  }
  return out
}

/** A Bech32 string with a valid checksum (BIP 173), for age keys. */
function bech32(hrp: string, data: number[]): string {
  const GEN = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3]
  const polymod = (values: number[]) => {
    let chk = 1
    for (const v of values) {
      const top = chk >>> 25
      chk = ((chk & 0x1ffffff) << 5) ^ v
      for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk ^= GEN[i]!
    }
    return chk
  }
  const expand = [...hrp].map((c) => c.charCodeAt(0) >> 5)
  const values = [...expand, 0, ...[...hrp].map((c) => c.charCodeAt(0) & 31), ...data]
  const mod = polymod([...values, 0, 0, 0, 0, 0, 0]) ^ 1
  const checksum = Array.from({ length: 6 }, (_, i) => (mod >>> (5 * (5 - i))) & 31)
  return `${hrp}1${[...data, ...checksum].map((d) => BECH32[d]).join('')}`
}

const withChecksum = (prefix: string, s: number) => {
  const body = rand(s, 30)
  return `${prefix}${body}${base62(crc32(body), 6)}`
}
const uuid = (s: number) =>
  `${rand(s, 8, HEX)}-${rand(s + 1, 4, HEX)}-${rand(s + 2, 4, HEX)}-${rand(s + 3, 4, HEX)}-${rand(s + 4, 12, HEX)}`

/** [label, build(seed), rule]: prefixes are split so that no scanner flags this file. */
const FAMILIES: Array<[string, (s: number) => string, string]> = [
  ['openrouter', (s) => `sk-${'or'}-v1-${rand(s, 64, HEX)}`, 'openrouter-key'],
  ['langfuse', (s) => `sk-${'lf'}-${uuid(s)}`, 'langfuse-secret-key'],
  ['deepseek', (s) => `s${'k'}-${rand(s, 32, HEX)}`, 'openai-key'],
  ['elevenlabs', (s) => `s${'k_'}${rand(s, 48, HEX)}`, 'elevenlabs-key'],
  ['cerebras', (s) => `cs${'k-'}${rand(s, 48, LO + DIG)}`, 'cerebras-key'],
  ['fireworks', (s) => `f${'w_'}${rand(s, 24)}`, 'fireworks-key'],
  ['together', (s) => `tgp${'_v1_'}${rand(s, 43, B64URL)}`, 'together-key'],
  ['jina', (s) => `jin${'a_'}${rand(s, 60)}`, 'jina-key'],
  ['e2b', (s) => `e2${'b_'}${rand(s, 40, HEX)}`, 'e2b-key'],
  ['firecrawl', (s) => `f${'c-'}${rand(s, 32, HEX)}`, 'firecrawl-key'],
  ['hugging face org', (s) => `api${'_org_'}${rand(s, 34)}`, 'huggingface-token'],
  ['bedrock', (s) => `ABSK${'QmVkcm9ja0FQSUtleS'}${rand(s, 100, `${B62}+/`)}=`, 'aws-bedrock-key'],
  ['google refresh', (s) => `1/${'/0'}${rand(s, 100, B64URL)}`, 'google-refresh-token'],
  ['github checksummed', (s) => withChecksum(`gh${'u_'}`, s), 'github-token'],
  ['github refresh', (s) => `gh${'r_'}${rand(s, 76)}`, 'github-token'],
  ['gitlab deploy', (s) => `gl${'dt-'}${rand(s, 20, B64URL)}`, 'gitlab-token'],
  ['gitlab runner', (s) => `gl${'rt-'}${rand(s, 20, B64URL)}`, 'gitlab-token'],
  ['gitlab registration', (s) => `GR134${'8941'}${rand(s, 20, B64URL)}`, 'gitlab-token'],
  ['bitbucket', (s) => `AT${'BB'}${rand(s, 32)}`, 'bitbucket-token'],
  ['atlassian', (s) => `ATA${'TT3'}${rand(s, 180, B64URL)}`, 'bitbucket-token'],
  ['npm checksummed', (s) => withChecksum(`np${'m_'}`, s), 'npm-token'],
  ['rubygems', (s) => `rubygem${'s_'}${rand(s, 48, HEX)}`, 'rubygems-key'],
  ['nuget', (s) => `oy${'2'}${rand(s, 43, LO + DIG)}`, 'nuget-key'],
  ['crates.io', (s) => `ci${'o'}${rand(s, 32)}`, 'crates-io-token'],
  ['clojars', (s) => `CLOJAR${'S_'}${rand(s, 60, LO + DIG)}`, 'clojars-token'],
  ['docker hub', (s) => `dckr${'_pat_'}${rand(s, 27, B64URL)}`, 'docker-hub-token'],
  ['docker org', (s) => `dckr${'_oat_'}${rand(s, 32, B64URL)}`, 'docker-hub-token'],
  ['jfrog', (s) => `AKC${'p'}${rand(s, 69)}`, 'jfrog-token'],
  ['buildkite', (s) => `bku${'a_'}${rand(s, 40, HEX)}`, 'buildkite-token'],
  ['circleci', (s) => `CCIPA${'T_'}${rand(s, 22)}_${rand(s + 1, 40, HEX)}`, 'circleci-token'],
  ['sonarqube', (s) => `sq${'p_'}${rand(s, 40, HEX)}`, 'sonarqube-token'],
  ['terraform', (s) => `${rand(s, 14)}.atlas${'v1'}.${rand(s + 1, 67, B64URL)}`, 'terraform-cloud-token'],
  ['pulumi', (s) => `pu${'l-'}${rand(s, 40, HEX)}`, 'pulumi-token'],
  [
    'azure client secret',
    (s) => `${rand(s, 3)}8${'Q~'}${rand(s + 1, 34, `${B62}_~.-`)}`,
    'azure-client-secret',
  ],
  ['azure devops', (s) => `${rand(s, 76)}AZ${'DO'}${rand(s + 1, 4)}`, 'azure-devops-pat'],
  [
    'azure sas url',
    (s) =>
      `https://acme.blob.core.windows.net/c/a.csv?sv=2022-11-02&sp=r&si${'g='}${encodeURIComponent(Buffer.from(rand(s, 32)).toString('base64'))}`,
    'azure-sas-url',
  ],
  ['fly macaroon', (s) => `FlyV1 fm${'2_'}${rand(s, 180 + (s % 7), B64URL)}`, 'fly-token'],
  ['vault service', (s) => `hv${'s.'}CAESI${rand(s, 90, B64URL)}`, 'vault-token'],
  ['vault batch', (s) => `hv${'b.'}AAAAAQ${rand(s, 130, B64URL)}`, 'vault-token'],
  ['doppler personal', (s) => `dp.${'pt'}.${rand(s, 43)}`, 'doppler-token'],
  ['doppler service', (s) => `dp.${'st'}.dev.${rand(s, 40)}`, 'doppler-token'],
  ['doppler sa', (s) => `dp.${'sa'}.${rand(s, 43)}`, 'doppler-token'],
  [
    'age',
    (s) =>
      bech32(
        'age-secret-key-',
        [...rand(s, 52, BECH32)].map((c) => BECH32.indexOf(c)),
      ).toUpperCase(),
    'age-secret-key',
  ],
  ['1password', (s) => `op${'s_'}eyJ${rand(s, 300, `${B62}+/`)}`, 'onepassword-token'],
  ['heroku', (s) => `HRK${'U-'}AA${rand(s, 58, B64URL)}`, 'heroku-token'],
  ['vercel', (s) => `vc${'p_'}${rand(s, 56)}`, 'vercel-token'],
  ['netlify', (s) => `nf${'p_'}${rand(s, 36)}`, 'netlify-token'],
  ['fly', (s) => `fo${'1_'}${rand(s, 43, B64URL)}`, 'fly-token'],
  ['render', (s) => `rn${'d_'}${rand(s, 32)}`, 'render-key'],
  ['planetscale', (s) => `pscal${'e_tkn_'}${rand(s, 43)}`, 'planetscale-token'],
  ['neon', (s) => `nap${'i_'}${rand(s, 64, LO + DIG)}`, 'neon-key'],
  ['supabase pat', (s) => `sb${'p_'}${rand(s, 40, HEX)}`, 'supabase-token'],
  ['supabase secret', (s) => `sb_${'secret_'}${rand(s, 31, B64URL)}`, 'supabase-token'],
  ['newrelic user', (s) => `NR${'AK-'}${rand(s, 27, UP + DIG)}`, 'newrelic-key'],
  ['newrelic insert', (s) => `NR${'II-'}${rand(s, 32, B64URL)}`, 'newrelic-key'],
  ['newrelic license', (s) => `${rand(s, 36, HEX)}NR${'AL'}`, 'newrelic-key'],
  ['grafana cloud', (s) => `gl${'c_'}eyJ${rand(s, 120, `${B62}+/`)}`, 'grafana-token'],
  ['grafana sa', (s) => `gls${'a_'}${rand(s, 32)}_${rand(s + 1, 8, HEX)}`, 'grafana-token'],
  [
    'dynatrace',
    (s) => `dt0${'c01'}.${rand(s, 24, UP + DIG)}.${rand(s + 1, 64, UP + DIG)}`,
    'dynatrace-token',
  ],
  ['slack refresh', (s) => `xo${'xe'}-1-${rand(s, 140)}`, 'slack-token'],
  ['slack rotating', (s) => `xo${'xe.xoxp'}-1-${rand(s, 140)}`, 'slack-token'],
  [
    'slack client',
    (s) => `xo${'xc'}-${rand(s, 12, DIG)}-${rand(s + 1, 13, DIG)}-${rand(s + 2, 64, HEX)}`,
    'slack-token',
  ],
  ['mailchimp', (s) => `${rand(s, 32, HEX)}-u${'s21'}`, 'mailchimp-key'],
  ['brevo', (s) => `xkey${'sib-'}${rand(s, 64, HEX)}-${rand(s + 1, 16)}`, 'brevo-key'],
  ['resend', (s) => `r${'e_'}${rand(s, 8)}_${rand(s + 1, 24)}`, 'resend-key'],
  ['square', (s) => `EAA${'A'}${rand(s, 60, B64URL)}`, 'square-token'],
  ['square oauth secret', (s) => `sq0${'csp-'}${rand(s, 43, B64URL)}`, 'square-token'],
  ['facebook', (s) => `EA${'AG'}${rand(s, 180)}`, 'facebook-token'],
  [
    'braintree',
    (s) => `access_token$${'production'}$${rand(s, 16, LO + DIG)}$${rand(s + 1, 32, HEX)}`,
    'braintree-token',
  ],
  ['plaid', (s) => `access-${'sandbox'}-${uuid(s)}`, 'plaid-token'],
  ['notion legacy', (s) => `secre${'t_'}${rand(s, 43)}`, 'notion-token'],
  ['figma', (s) => `fig${'d_'}${rand(s, 40, B64URL)}`, 'figma-token'],
  ['airtable', (s) => `pa${'t'}${rand(s, 14)}.${rand(s + 1, 64, HEX)}`, 'airtable-token'],
  ['hubspot', (s) => `pa${'t-na1'}-${uuid(s)}`, 'hubspot-token'],
  ['contentful', (s) => `CFPA${'T-'}${rand(s, 43, B64URL)}`, 'contentful-token'],
  ['mapbox', (s) => `s${'k.'}eyJ${rand(s, 60, B64URL)}.${rand(s + 1, 22, B64URL)}`, 'mapbox-secret-token'],
  ['dropbox', (s) => `s${'l.'}${rand(s, 140, B64URL)}`, 'dropbox-token'],
  ['shippo', (s) => `shipp${'o_live_'}${rand(s, 40, HEX)}`, 'shippo-token'],
  ['typeform', (s) => `tf${'p_'}${rand(s, 44, B64URL)}_${rand(s + 1, 14, B64URL)}`, 'typeform-token'],
]

const redactor = createRedactor({ useGlobalRules: false })
const redact = (text: string) => redactor.redactString(text)

describe.each(FAMILIES)('%s', (_label, build, rule) => {
  it(`is redacted as ${rule}, found by the scanner, and stable under rotation`, () => {
    const a = build(1)
    const b = build(2)
    expect(a).not.toBe(b)
    const first = redact(`config: ${a} (rotated monthly)`)
    expect(first.value).toBe(`config: [REDACTED:${rule}] (rotated monthly)`)
    expect(first.records.map((r) => r.rule)).toEqual([rule])
    expect(redact(`config: ${b} (rotated monthly)`).value).toBe(first.value)
    expect(scanText(`log ${a}`).map((f) => f.rule)).toContain(rule)
  })
})

describe('the rule table', () => {
  it('gives every pattern a hint or a validator, and every vendor pattern a validator', () => {
    const unguarded = DEFAULT_PATTERNS.filter((p) => !p.validate && p.id !== 'private-key')
    expect(unguarded.map((p) => p.id)).toEqual([])
    expect(DEFAULT_PATTERNS.filter((p) => !p.hint).map((p) => p.id)).toEqual(['discord-bot-token'])
  })

  it('GitHub tokens: a valid checksum is redacted whatever it looks like; a bad one only if random', () => {
    const good = withChecksum(`gh${'p_'}`, 9)
    expect(redact(good).value).toBe('[REDACTED:github-token]')
    const badButRandom = `${good.slice(0, -6)}${rand(77, 6)}`
    expect(redact(badButRandom).value).toBe('[REDACTED:github-token]')
    const lookAlike = `gh${'p_'}${'0123456789abcdefghijklmnopqrstuvwxyz'}`
    expect(redact(lookAlike).value).toBe(lookAlike)
  })

  it('takes a secret whole when its last character is a separator its alphabet allows', () => {
    const azure = `${rand(5, 3)}8${'Q~'}${rand(6, 33, `${B62}_~-`)}.`
    expect(redact(`the secret ${azure}.`).value).toBe('the secret [REDACTED:azure-client-secret].')
    const insert = `NR${'II-'}${rand(7, 31, B64URL)}-`
    expect(redact(`key ${insert}<br>`).value).toBe('key [REDACTED:newrelic-key]<br>')
  })

  it('hides an age key whose checksum fails (cut short or mistyped), but not a placeholder', () => {
    const key = bech32(
      'age-secret-key-',
      [...rand(3, 52, BECH32)].map((c) => BECH32.indexOf(c)),
    ).toUpperCase()
    const broken = key.slice(0, -1) + (key.endsWith('Q') ? 'P' : 'Q')
    expect(redact(key).value).toBe('[REDACTED:age-secret-key]')
    expect(redact(broken).value).toBe('[REDACTED:age-secret-key]')
    const placeholder = `AGE-SECRET-KEY-1${'Q'.repeat(58)}`
    expect(redact(placeholder).value).toBe(placeholder)
  })
})
