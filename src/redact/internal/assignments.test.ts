import { describe, expect, it } from 'vitest'
import { createRedactor } from '../create-redactor.ts'
import { redactDocument } from '../redact-document.ts'

/** Secrets named by their context: env files, configs, netrc, CLI flags, HTTP headers in text. */

const redactor = createRedactor({ useGlobalRules: false })
const redact = (text: string) => redactor.redactString(text).value

/** An opaque value with no vendor format, built here so that no scanner flags this file. */
const pw = (n: number) => `Zq${n}x-${'r7Vb'}${n * 7}Lm`

describe('assignment-shaped secrets', () => {
  it.each([
    [`export NAME_AUTH_TOKEN=${pw(1)}`, 'export NAME_AUTH_TOKEN=[REDACTED:secret-assignment]'],
    [`OPENAI_API_KEY=${pw(2)}`, 'OPENAI_API_KEY=[REDACTED:secret-assignment]'],
    [`STRIPE_SECRET="${pw(3)}"`, 'STRIPE_SECRET="[REDACTED:secret-assignment]"'],
    [`DB_PASSWORD: ${pw(4)}`, 'DB_PASSWORD: [REDACTED:secret-assignment]'],
    [`PGPASSWORD=${pw(5)} psql -h db`, 'PGPASSWORD=[REDACTED:secret-assignment] psql -h db'],
    [`GITHUB_TOKEN=${pw(6)}`, 'GITHUB_TOKEN=[REDACTED:secret-assignment]'],
    [`VAULT_TOKEN=s.${pw(7)}`, 'VAULT_TOKEN=[REDACTED:secret-assignment]'],
    [`spring.datasource.password=${pw(8)}`, 'spring.datasource.password=[REDACTED:secret-assignment]'],
    [`client_secret := "${pw(9)}"`, 'client_secret := "[REDACTED:secret-assignment]"'],
    [`'api_key' => '${pw(10)}'`, "'api_key' => '[REDACTED:secret-assignment]'"],
    [`X-Api-Key: ${pw(11)}`, 'X-Api-Key: [REDACTED:secret-assignment]'],
    [`PRIVATE-TOKEN: ${pw(12)}`, 'PRIVATE-TOKEN: [REDACTED:secret-assignment]'],
    [
      `//registry.npmjs.org/:_authToken=${pw(13)}`,
      '//registry.npmjs.org/:_authToken=[REDACTED:secret-assignment]',
    ],
    [`_auth=${Buffer.from(`me:${pw(14)}`).toString('base64')}`, '_auth=[REDACTED:secret-assignment]'],
    [`MAPS_KEY=${'q8Zk3Vx9'}${'LmP2rT7wYb4N'}`, 'MAPS_KEY=[REDACTED:secret-assignment]'],
    ['SESSION_SECRET=keyboard-cat', 'SESSION_SECRET=[REDACTED:secret-assignment]'],
    ['JWT_SECRET=supersecret', 'JWT_SECRET=[REDACTED:secret-assignment]'],
    ['DB_PASSWORD=correct-horse-battery', 'DB_PASSWORD=[REDACTED:secret-assignment]'],
    [`aws_session_token = ${pw(15)}`, 'aws_session_token = [REDACTED:secret-assignment]'],
    [
      `<server><password>${pw(16)}</password></server>`,
      '<server><password>[REDACTED:secret-assignment]</password></server>',
    ],
    [`client-key-data: ${pw(17)}`, 'client-key-data: [REDACTED:secret-assignment]'],
  ])('%s', (input, expected) => {
    expect(redact(input)).toBe(expected)
  })

  it.each([
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell or template placeholder, on purpose
    'OPENAI_API_KEY=${OPENAI_API_KEY}',
    'OPENAI_API_KEY=$OPENAI_API_KEY',
    'OPENAI_API_KEY=<your key>',
    'OPENAI_API_KEY=YOUR_API_KEY',
    'apiKey: process.env.OPENAI_API_KEY',
    'api_key = os.environ["OPENAI_API_KEY"]',
    'client = OpenAI(api_key=api_key)',
    'password: string;',
    'password: z.string().min(8)',
    'max_tokens=4096',
    'token_count=1234',
    'nextPageToken=CAUQAA',
    'api_key_id=42',
    'secretary: Miss Moneypenny',
    'Password: Must be at least 8 characters',
    'PAGE_TOKEN=CAUQAA123',
    'EOS_TOKEN=</s>',
    'SORT_KEY=created_at',
    'PUBLIC_KEY=ssh-ed25519',
    'GOOGLE_APPLICATION_CREDENTIALS=/secrets/sa.json',
    'OLDPWD=/home/dev/project',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell or template placeholder, on purpose
    'github_token: ${{ secrets.GITHUB_TOKEN }}',
  ])('leaves %s', (input) => {
    expect(redact(input)).toBe(input)
  })
})

describe('netrc, curl and database clients', () => {
  it('replaces the netrc password, on one line or several', () => {
    expect(redact(`machine api.example.com login me password ${pw(20)}`)).toBe(
      'machine api.example.com login me password [REDACTED:netrc-password]',
    )
    expect(redact(`machine h\n  login me\n  password ${pw(21)}\n`)).toBe(
      'machine h\n  login me\n  password [REDACTED:netrc-password]\n',
    )
  })

  it('replaces the password of curl -u, keeping the user', () => {
    expect(redact(`curl -s -u admin:${pw(22)} https://h/x`)).toBe(
      'curl -s -u admin:[REDACTED:cli-password] https://h/x',
    )
    expect(redact(`curl --user "admin:${pw(23)}" https://h/x`)).toBe(
      'curl --user "admin:[REDACTED:cli-password]" https://h/x',
    )
    expect(redact('curl -u admin:$PASSWORD https://h/x')).toBe('curl -u admin:$PASSWORD https://h/x')
  })

  it('replaces mysql -p and sshpass -p values', () => {
    expect(redact(`mysql -u root -p${pw(24)} app`)).toBe('mysql -u root -p[REDACTED:cli-password] app')
    expect(redact(`sshpass -p ${pw(25)} ssh me@h`)).toBe('sshpass -p [REDACTED:cli-password] ssh me@h')
    expect(redact('mysql -u root -p app')).toBe('mysql -u root -p app')
  })
})

describe('HTTP headers inside text', () => {
  it('replaces every Cookie value and only the Set-Cookie value, not its attributes', () => {
    expect(redact(`Cookie: sid=${pw(30)}; theme=dark`)).toBe(
      'Cookie: sid=[REDACTED:cookie]; theme=[REDACTED:cookie]',
    )
    const set = `Set-Cookie: sid=${pw(31)}; Path=/; Expires=Wed, 21 Oct 2026 07:28:00 GMT; HttpOnly; Secure`
    expect(redact(set)).toBe(
      'Set-Cookie: sid=[REDACTED:cookie]; Path=/; Expires=Wed, 21 Oct 2026 07:28:00 GMT; HttpOnly; Secure',
    )
  })

  it('replaces the credential of any Authorization scheme, keeping the scheme', () => {
    expect(redact(`curl -H "Authorization: Token ${pw(32)}" https://h`)).toBe(
      'curl -H "Authorization: Token [REDACTED:auth-header]" https://h',
    )
    expect(redact(`Proxy-Authorization: ApiKey ${pw(33)}`)).toBe(
      'Proxy-Authorization: ApiKey [REDACTED:auth-header]',
    )
    const sig = 'a1b2c3d4e5f6'.repeat(5).slice(0, 60) + 'f00d'
    expect(
      redact(
        `Authorization: AWS4-HMAC-SHA256 Credential=x/20260101/us-east-1/s3/aws4_request, Signature=${sig}`,
      ),
    ).toBe(
      // The signature rule and the header rule (whose `k=v` credential runs to the end of the line) both
      // match: the union is replaced, named by the header rule, whose match starts first.
      'Authorization: AWS4-HMAC-SHA256 [REDACTED:auth-header]',
    )
    const basic = Buffer.from(`svc:${pw(34)}`).toString('base64')
    expect(redact(`Authorization: Basic ${basic}`)).toBe('Authorization: Basic [REDACTED:basic-auth]')
    expect(redact('Authorization: required for every call')).toBe('Authorization: required for every call')
  })
})

describe('stability', () => {
  it('is idempotent, and gives the same bytes when the secret rotates', () => {
    const doc = (n: number) => ({
      env: `DB_PASSWORD=${pw(n)}\nGITHUB_TOKEN=${pw(n + 1)}`,
      log: `Cookie: sid=${pw(n + 2)}; a=${pw(n + 3)}`,
      cmd: `curl -u me:${pw(n + 4)} https://h`,
    })
    const once = redactDocument(doc(40))
    expect(redactDocument(once.value).value).toEqual(once.value)
    expect(redactDocument(once.value).records).toEqual([])
    expect(redactDocument(doc(50)).value).toEqual(once.value)
  })
})

describe('sensitive keys named for a service or a key kind', () => {
  it.each(['GITHUB_TOKEN', 'hfToken', 'vault_token', 'X-Figma-Token', 'masterKey', 'license_key', 'cookies'])(
    'replaces the value under %s',
    (key) => {
      expect(redactDocument({ [key]: 'opaque-value-1' }).value).toEqual({ [key]: '[REDACTED:sensitive-key]' })
    },
  )

  it.each(['next_page_token', 'eos_token', 'token_count', 'sort_key', 'public_key_id'])('keeps %s', (key) => {
    const doc = { [key]: 'data-value' }
    expect(redactDocument(doc).value).toBe(doc)
  })
})
