import { ALNUM, B64, B64URL, BASE32, between, chars, DIGITS, HEX, mixed, pemLines, randomB64 } from './gen.ts'
import { assigned, prefixed, type SecretFormat } from './types.ts'

/**
 * Model providers and clouds. Each entry names where its format is documented; where a provider only
 * documents the prefix, the body follows the length and alphabet the provider's keys have in practice
 * (and GitHub's secret-scanning partner list, which publishes the formats partners register).
 */

const OPENAI = 'https://platform.openai.com/docs/api-reference/authentication'
/** The base64 of "OpenAI" that OpenAI embeds in the middle of its keys. */
const OPENAI_MARK = 'T3Blbk' + 'FJ'

const openaiBody = (n: number) => (r: Parameters<typeof chars>[0]) =>
  mixed(r, B64URL, n) + OPENAI_MARK + mixed(r, B64URL, n)

export const AI_CLOUD_FORMATS: SecretFormat[] = [
  prefixed('openai-project-key', OPENAI, 'sk-' + 'proj-', openaiBody(74)),
  prefixed(
    'openai-legacy-user-key',
    OPENAI,
    'sk-',
    (r) => mixed(r, ALNUM, 20) + OPENAI_MARK + mixed(r, ALNUM, 20),
  ),
  prefixed('openai-service-account-key', OPENAI, 'sk-' + 'svcacct-', openaiBody(74)),
  prefixed(
    'openai-admin-key',
    'https://platform.openai.com/docs/api-reference/administration',
    'sk-' + 'admin-',
    openaiBody(74),
  ),
  // Anthropic keys: the documented `sk-ant-` family, a 93-character body and an `AA` tail.
  prefixed(
    'anthropic-api-key',
    'https://docs.anthropic.com/en/api/overview#authentication',
    'sk-' + 'ant-api03-',
    (r) => `${mixed(r, B64URL, 93)}AA`,
  ),
  prefixed(
    'anthropic-admin-key',
    'https://docs.anthropic.com/en/api/administration-api',
    'sk-' + 'ant-admin01-',
    (r) => `${mixed(r, B64URL, 93)}AA`,
  ),
  prefixed('google-api-key', 'https://cloud.google.com/docs/authentication/api-keys', 'AI' + 'za', (r) =>
    mixed(r, B64URL, 35),
  ),
  // Refresh tokens of Google's OAuth server start `1//0`; the rest is base64url.
  prefixed(
    'google-oauth-refresh-token',
    'https://developers.google.com/identity/protocols/oauth2#size',
    '1/' + '/',
    (r) => `0${chars(r, 'ghijklmnopqrstuvwxyzABCDEFGHIJ', 1)}${mixed(r, B64URL, 100)}`,
  ),
  prefixed(
    'google-oauth-access-token',
    'https://developers.google.com/identity/protocols/oauth2#size',
    'ya' + '29.',
    (r) => `a0${mixed(r, B64URL, 150)}`,
  ),
  prefixed(
    'google-oauth-client-secret',
    'https://developers.google.com/identity/protocols/oauth2/web-server#creatingcred',
    'GOC' + 'SPX-',
    (r) => mixed(r, B64URL, 28),
  ),
  prefixed('groq-api-key', 'https://console.groq.com/docs/api-keys', 'gs' + 'k_', (r) => mixed(r, ALNUM, 52)),
  prefixed('xai-api-key', 'https://docs.x.ai/docs/api-reference#authentication', 'xa' + 'i-', (r) =>
    mixed(r, ALNUM, 80),
  ),
  prefixed('huggingface-token', 'https://huggingface.co/docs/hub/security-tokens', 'h' + 'f_', (r) =>
    mixed(r, ALNUM, 34),
  ),
  prefixed('replicate-token', 'https://replicate.com/docs/topics/security/api-tokens', 'r' + '8_', (r) =>
    mixed(r, ALNUM, 37),
  ),
  prefixed('perplexity-key', 'https://docs.perplexity.ai/guides/getting-started', 'pp' + 'lx-', (r) =>
    mixed(r, ALNUM, 48),
  ),
  prefixed('deepseek-key', 'https://api-docs.deepseek.com/', 'sk-', (r) => mixed(r, HEX, 32)),
  prefixed(
    'openrouter-key',
    'https://openrouter.ai/docs/api-reference/authentication',
    'sk-' + 'or-v1-',
    (r) => mixed(r, HEX, 64),
  ),
  prefixed(
    'langsmith-key',
    'https://docs.smith.langchain.com/administration/how_to_guides/organization_management/create_account_api_key',
    'lsv2' + '_pt_',
    (r) => `${mixed(r, HEX, 32)}_${mixed(r, HEX, 10)}`,
  ),
  prefixed(
    'pinecone-key',
    'https://docs.pinecone.io/guides/projects/manage-api-keys',
    'pc' + 'sk_',
    (r) => `${mixed(r, ALNUM, 6)}_${mixed(r, ALNUM, 63)}`,
  ),
  prefixed(
    'tavily-key',
    'https://docs.tavily.com/documentation/api-reference/introduction',
    'tv' + 'ly-',
    (r) => mixed(r, ALNUM, 32),
  ),
  prefixed('elevenlabs-key', 'https://elevenlabs.io/docs/api-reference/authentication', 's' + 'k_', (r) =>
    mixed(r, HEX, 48),
  ),
  prefixed(
    'aws-access-key-id',
    'https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html#identifiers-unique-ids',
    'AK' + 'IA',
    (r) => mixed(r, BASE32, 16),
  ),
  prefixed(
    'aws-temporary-access-key-id',
    'https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html#identifiers-unique-ids',
    'AS' + 'IA',
    (r) => mixed(r, BASE32, 16),
  ),
  assigned(
    'aws-credentials-file-secret',
    'https://docs.aws.amazon.com/cli/latest/userguide/cli-configure-files.html',
    (v) => `aws_secret_access_key = ${v}`,
    (r) => mixed(r, B64, 40),
  ),
  assigned(
    'aws-env-secret',
    'https://docs.aws.amazon.com/cli/latest/userguide/cli-configure-envvars.html',
    (v) => `AWS_SECRET_ACCESS_KEY=${v}`,
    (r) => mixed(r, B64, 40),
  ),
  {
    // A session token is base64 of a binary blob whose first bytes are always the same.
    id: 'aws-session-token',
    source: 'https://docs.aws.amazon.com/cli/latest/userguide/cli-configure-files.html',
    generate(r) {
      const v = randomB64(r, 300)
      return { text: `aws_session_token = IQoJb3JpZ2luX2Vj${v}`, sensitive: [v] }
    },
  },
  {
    id: 'aws-credentials-profile',
    source: 'https://docs.aws.amazon.com/cli/latest/userguide/cli-configure-files.html',
    generate(r) {
      const id = mixed(r, BASE32, 16)
      const secret = mixed(r, B64, 40)
      return {
        text: `[default]\naws_access_key_id = AK${'IA'}${id}\naws_secret_access_key = ${secret}\nregion = eu-west-1`,
        sensitive: [id, secret],
      }
    },
  },
  {
    id: 'azure-storage-connection-string',
    source: 'https://learn.microsoft.com/en-us/azure/storage/common/storage-configure-connection-string',
    generate(r) {
      const key = randomB64(r, 64)
      return {
        text: `DefaultEndpointsProtocol=https;AccountName=acmeprod;AccountKey=${key};EndpointSuffix=core.windows.net`,
        sensitive: [key],
      }
    },
  },
  {
    id: 'azure-sas-url',
    source: 'https://learn.microsoft.com/en-us/rest/api/storageservices/create-service-sas',
    generate(r) {
      const sig = randomB64(r, 32)
      const encoded = encodeURIComponent(sig)
      return {
        text: `https://acmeprod.blob.core.windows.net/exports/report.csv?sv=2022-11-02&sr=b&sp=r&se=2030-01-01T00%3A00%3A00Z&spr=https&sig=${encoded}`,
        sensitive: [encoded],
      }
    },
  },
  // Entra ID client secrets: three characters, a digit, `Q~`, then 34 more.
  prefixed(
    'azure-client-secret',
    'https://learn.microsoft.com/en-us/entra/identity-platform/how-to-add-credentials',
    '',
    (r) => `${mixed(r, ALNUM, 3)}${chars(r, DIGITS, 1)}Q~${mixed(r, `${ALNUM}_~.-`, 34)}`,
  ),
  {
    id: 'gcp-service-account-json',
    source: 'https://cloud.google.com/iam/docs/keys-create-delete#creating',
    generate(r) {
      const keyId = mixed(r, HEX, 40)
      const lines = pemLines(r, 600)
      const pem = `-----BEGIN ${'PRIVATE'} KEY-----\n${lines.join('\n')}\n-----END ${'PRIVATE'} KEY-----\n`
      const json = JSON.stringify({
        type: 'service_account',
        project_id: 'acme-prod',
        private_key_id: keyId,
        private_key: pem,
        client_email: 'agent@acme-prod.iam.gserviceaccount.com',
      })
      return { text: json, sensitive: [keyId, ...lines] }
    },
  },
  prefixed(
    'digitalocean-token',
    'https://docs.digitalocean.com/reference/api/create-personal-access-token/',
    'dop' + '_v1_',
    (r) => mixed(r, HEX, 64),
  ),
  prefixed('databricks-token', 'https://docs.databricks.com/aws/en/dev-tools/auth/pat', 'da' + 'pi', (r) =>
    mixed(r, HEX, 32),
  ),
  assigned(
    'cloudflare-api-token-env',
    'https://developers.cloudflare.com/fundamentals/api/get-started/create-token/',
    (v) => `CLOUDFLARE_API_TOKEN=${v}`,
    (r) => mixed(r, B64URL, 40),
  ),
  prefixed(
    'planetscale-password',
    'https://planetscale.com/docs/concepts/connection-strings',
    'pscale' + '_pw_',
    (r) => mixed(r, B64URL, 43),
  ),
  prefixed(
    'planetscale-token',
    'https://planetscale.com/docs/concepts/service-tokens',
    'pscale' + '_tkn_',
    (r) => mixed(r, B64URL, 43),
  ),
  // The length is not secret: drawn from `shape`, so a rotated token has the same length.
  prefixed('fly-token', 'https://fly.io/docs/security/tokens/', 'FlyV1 ' + 'fm2_', (r, shape) =>
    mixed(r, B64URL, between(shape, 180, 220)),
  ),
]
