import { describe, expect, it } from 'vitest'
import { redactDocument } from '../redact-document.ts'
import { scanText } from '../scan-text.ts'

/**
 * Ordinary text shaped like a credential. A false positive changes what the agent sees on replay, so
 * each of these must come out of the redactor byte for byte, and the scanner's patterns must not flag
 * it. Placeholders are spelled out whole: none of them is, or could pass for, a real key.
 */
const LOOK_ALIKES = [
  // CSS classes and identifiers that start like an OpenAI key
  '<button class="sk-button-primary-large">Save</button>',
  '.sk-fading-circle-container-element { width: 40px }',
  'import the sk-spinner-double-bounce-child component',
  'the sk-learn docs',
  'pip install sk-learn-contrib-imbalanced',
  // "Basic" and "Bearer" followed by words
  'Basic Concepts of agents',
  'Basic README for newcomers',
  'BASIC PROGRAMMING for kids',
  'Chapter 2: Basic HTTPAuth setup',
  'Basic authentication is disabled',
  'Bearer instruments are risky.',
  'Send the Bearer Token header',
  'Authorization: Bearer <token>',
  'Authorization: Bearer $TOKEN',
  'Authorization: Bearer YOUR_API_KEY',
  'Authorization: required for every call',
  // greetings after xoxo-
  'xoxo-hugs-and-kisses from grandma',
  'signed xoxo-gossip-girl-fan-club',
  'xoxb-your-bot-token-goes-here',
  // placeholders and documented example keys
  'YOUR_API_KEY',
  'OPENAI_API_KEY=YOUR_API_KEY',
  'OPENAI_API_KEY=your-api-key-here',
  'OPENAI_API_KEY=<your key>',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell or template placeholder, on purpose
  'OPENAI_API_KEY=${OPENAI_API_KEY}',
  'ANTHROPIC_API_KEY=$ANTHROPIC_API_KEY',
  'export OPENAI_API_KEY="sk-your-openai-api-key-here"',
  'api_key: process.env.OPENAI_API_KEY',
  'aws_access_key_id = AKIAIOSFODNN7EXAMPLE',
  'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  'GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
  'token ghp_0123456789abcdefghijklmnopqrstuvwxyz',
  'key=AIzaSyXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX',
  'STRIPE_KEY=sk_live_xxxxxxxxxxxxxxxxxxxxxxxx',
  'HF_TOKEN=hf_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
  'VAULT_TOKEN=hvs.XXXXXXXXXXXXXXXXXXXXXXXXXXXX',
  'DOPPLER_TOKEN=dp.st.dev.xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
  'DOCKER_TOKEN=dckr_pat_your_personal_access_token_here',
  'FIGMA_TOKEN=figd_your_figma_personal_access_token_here',
  'SUPABASE_ACCESS_TOKEN=sbp_0000000000000000000000000000000000000000',
  'NEW_RELIC_API_KEY=NRAK-XXXXXXXXXXXXXXXXXXXXXXXXXXX',
  'AGE-SECRET-KEY-1QQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQ',
  'Authorization: token ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX',
  // query strings and URLs
  'https://maps.example.com/search?key=coffee+shops&near=me',
  'https://maps.example.com/search?key=coffee%20shops',
  'https://api.example.com/v1/items?code=200&status=ok',
  'https://api.example.com/v1/items?auth=true&page=2',
  'https://api.example.com/v1/items?token=&page=2',
  'https://api.example.com/v1/items?key=YOUR_API_KEY',
  'http://localhost:3000/path?x=1',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell or template placeholder, on purpose
  'postgres://postgres:${DB_PASSWORD}@db:5432/app',
  'postgres://user:password@localhost:5432/app',
  // names that look like secrets
  'token_count: 1234',
  'max_tokens=4096',
  'nextPageToken=CAUQAA',
  'api_key_id=12345',
  'the secretary said hello',
  'password: string;',
  'password: z.string().min(8)',
  'Password: Must be at least 8 characters',
  'client = OpenAI(api_key=api_key)',
  'password reset link sent to your email',
  'EOS_TOKEN=</s>',
  'SORT_KEY=created_at',
  'machine learning password manager',
  'curl -u $USER:$TOKEN https://api.example.com',
  'Cookie: a small text file a site stores',
  // ids and hashes that are not credentials
  '123e4567-e89b-12d3-a456-426614174000',
  'commit 9fceb02d0ae598e95dc970b74767f19372d61af8',
  'eyJxxxxxxxxxx.yyyyyyyyyyyy.zzzzzzzzzzzz',
  'ratio 1//0 is undefined',
  'key-value stores and key-rotation-policies',
  're_compile_pattern_flags_cache',
  // code: variables, types, expressions and fixtures under secret-like names
  'let hasApiKey = !isBearerToken;',
  'const { authorization: _authorization, headers } = init',
  "const X509_SUBJECT_TOKEN = 'urn:openai:params:oauth:token-type:x509';",
  'apiKey: ApiKey;',
  'privateKey: NonSharedBuffer;',
  'const LOG_LEVEL_META_KEY = "io.modelcontextprotocol/logLevel";',
  'apiKey = provider ? null : readEnv()',
  'this.apiKey = fields?.apiKey ?? config.apiKey',
  'refreshToken: "valid-refresh-token",',
  'const getAccessToken = async () => {',
  'secret: experimental_toolApprovalSecret,',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell or template placeholder, on purpose
  'headers.authorization = `Bearer ${apiKey}`',
  'Use bearer authentication.',
  'PRIVATE_KEY="-----BEGIN RSA PRIVATE KEY-----\nKh9NV...\n-----END RSA PRIVATE KEY-----\n"',
  'OPENAI_API_KEY=sk-...',
  'ANTHROPIC_API_KEY=sk-ant-... MODEL=claude',
  "apiKey: 'sk-ant-demo-not-a-real-key'",
  'password: /.+/i',
  'client_secret: REDACT,',
  'CRON_SECRET="replace-with-a-long-random-string"',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell or template placeholder, on purpose
  '//registry.npmjs.org/:_authToken=${NPM_TOKEN}',
  'password=********',
]

describe('look-alikes', () => {
  it('has at least 60 entries', () => {
    expect(new Set(LOOK_ALIKES).size).toBeGreaterThanOrEqual(60)
  })

  it.each(LOOK_ALIKES)('leaves %s', (text) => {
    const doc = { content: text }
    const result = redactDocument(doc)
    expect(result.value.content).toBe(text)
    expect(result.records).toEqual([])
    expect(scanText(text, { entropy: false })).toEqual([])
  })
})
