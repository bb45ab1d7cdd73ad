import {
  ALNUM,
  B64URL,
  b64url,
  chars,
  DIGITS,
  HEX,
  LOWER_ALNUM,
  mixed,
  PASSWORD,
  pemLines,
  type Rng,
} from '../corpus/gen.ts'
import { assigned, prefixed, type SecretFormat } from '../corpus/types.ts'

/**
 * The HELD-OUT formats: no test asserts on them, and the redaction rules are not tuned on them.
 * `node bench/redaction-held-out.ts` measures how many of them leak, as an estimate of how the rules
 * do on formats nobody wrote a rule for on purpose. None of them is in the main corpus.
 */

const password = (r: Rng) => mixed(r, PASSWORD, 20)

export const HELD_OUT_FORMATS: readonly SecretFormat[] = [
  prefixed(
    'anthropic-oauth-token',
    'https://docs.anthropic.com/en/api/overview#authentication',
    'sk-' + 'ant-oat01-',
    (r) => `${mixed(r, B64URL, 93)}AA`,
  ),
  prefixed('tencent-secret-id', 'https://www.tencentcloud.com/document/product/598/32675', 'AK' + 'ID', (r) =>
    mixed(r, ALNUM, 32),
  ),
  {
    id: 'twitter-bearer-token',
    source: 'https://developer.x.com/en/docs/authentication/oauth-2-0/bearer-tokens',
    generate(r) {
      const body = `${mixed(r, ALNUM, 23)}%2B${mixed(r, ALNUM, 20)}%3D${mixed(r, ALNUM, 50)}`
      return { text: `${'A'.repeat(21)}${body}`, sensitive: [body] }
    },
  },
  prefixed('huggingface-org-token', 'https://huggingface.co/docs/hub/security-tokens', 'api' + '_org_', (r) =>
    mixed(r, ALNUM, 34),
  ),
  assigned(
    'datadog-api-key-env',
    'https://docs.datadoghq.com/account_management/api-app-keys/',
    (v) => `DD_API_KEY=${v}`,
    (r) => mixed(r, HEX, 32),
  ),
  assigned(
    'datadog-app-key-env',
    'https://docs.datadoghq.com/account_management/api-app-keys/',
    (v) => `DD_APP_KEY=${v}`,
    (r) => mixed(r, HEX, 40),
  ),
  assigned(
    'algolia-admin-key-env',
    'https://www.algolia.com/doc/guides/security/api-keys/',
    (v) => `ALGOLIA_ADMIN_KEY=${v}`,
    (r) => mixed(r, HEX, 32),
  ),
  assigned(
    'segment-write-key-env',
    'https://segment.com/docs/connections/find-writekey/',
    (v) => `SEGMENT_WRITE_KEY=${v}`,
    (r) => mixed(r, ALNUM, 32),
  ),
  assigned(
    'mistral-key-env',
    'https://docs.mistral.ai/getting-started/quickstart/',
    (v) => `MISTRAL_API_KEY=${v}`,
    (r) => mixed(r, ALNUM, 32),
  ),
  assigned(
    'cohere-key-env',
    'https://docs.cohere.com/reference/about',
    (v) => `CO_API_KEY=${v}`,
    (r) => mixed(r, ALNUM, 40),
  ),
  assigned(
    'azure-openai-key-header',
    'https://learn.microsoft.com/en-us/azure/ai-services/openai/reference#authentication',
    (v) => `api-key: ${v}`,
    (r) => mixed(r, HEX, 32),
  ),
  {
    id: 'firebase-cloud-messaging-key',
    source: 'https://firebase.google.com/docs/cloud-messaging/auth-server',
    generate(r) {
      const body = `${mixed(r, B64URL, 7)}:APA91b${mixed(r, B64URL, 134)}`
      return { text: `AAAA${body}`, sensitive: [body] }
    },
  },
  {
    id: 'asana-pat',
    source: 'https://developers.asana.com/docs/personal-access-token',
    generate(r, shape) {
      const secret = mixed(r, HEX, 32)
      return {
        text: `2/${chars(shape, DIGITS, 16)}/${chars(shape, DIGITS, 16)}:${secret}`,
        sensitive: [secret],
      }
    },
  },
  assigned(
    'okta-ssws-text',
    'https://developer.okta.com/docs/guides/create-an-api-token/main/',
    (v) => `Authorization: SSWS 00${v}`,
    (r) => mixed(r, B64URL, 40),
  ),
  {
    id: 'braintree-access-token',
    source: 'https://developer.paypal.com/braintree/docs/guides/authorization/overview',
    generate(r) {
      const a = mixed(r, LOWER_ALNUM, 16)
      const b = mixed(r, HEX, 32)
      return { text: `access_token$production$${a}$${b}`, sensitive: [`${a}$${b}`] }
    },
  },
  prefixed(
    'clojars-token',
    'https://github.com/clojars/clojars-web/wiki/Deploy-Tokens',
    'CLOJARS' + '_',
    (r) => mixed(r, HEX, 60),
  ),
  prefixed(
    'frameio-token',
    'https://developer.frame.io/docs/getting-started/authentication',
    'fio' + '-u-',
    (r) => mixed(r, B64URL, 64),
  ),
  prefixed('scalingo-token', 'https://doc.scalingo.com/platform/cli/login', 'tk' + '-us-', (r) =>
    mixed(r, B64URL, 48),
  ),
  prefixed(
    'infracost-key',
    'https://www.infracost.io/docs/integrations/environment_variables/',
    'ic' + 'o-',
    (r) => mixed(r, ALNUM, 32),
  ),
  prefixed(
    'adobe-client-secret',
    'https://developer.adobe.com/developer-console/docs/guides/authentication/',
    'p8' + 'e-',
    (r) => mixed(r, ALNUM, 32),
  ),
  {
    id: 'sentry-org-token',
    source: 'https://docs.sentry.io/account/auth-tokens/#organization-tokens',
    generate(r) {
      const claims = b64url(JSON.stringify({ iat: 1_700_000_000, url: 'https://sentry.io', org: 'acme' }))
      const secret = mixed(r, B64URL, 43)
      return { text: `sn${'trys'}_${claims}_${secret}`, sensitive: [secret] }
    },
  },
  prefixed(
    'honeycomb-ingest-key',
    'https://docs.honeycomb.io/configure/environments/manage-api-keys/',
    'hc' + 'aik_',
    (r) => `01${mixed(r, LOWER_ALNUM, 56)}`,
  ),
  prefixed(
    'gitlab-oauth-app-secret',
    'https://docs.gitlab.com/security/tokens/#token-prefixes',
    'gl' + 'oas-',
    (r) => mixed(r, HEX, 64),
  ),
  prefixed(
    'gitlab-feed-token',
    'https://docs.gitlab.com/security/tokens/#token-prefixes',
    'gl' + 'ft-',
    (r) => mixed(r, B64URL, 20),
  ),
  prefixed(
    'slack-rotating-token',
    'https://api.slack.com/authentication/rotation',
    'xoxe.' + 'xoxp-1-',
    (r) => mixed(r, B64URL, 160),
  ),
  prefixed('stripe-restricted-test', 'https://docs.stripe.com/keys', 'rk' + '_test_', (r) =>
    mixed(r, ALNUM, 99),
  ),
  assigned(
    'mysql-cli-password',
    'https://dev.mysql.com/doc/refman/8.4/en/connection-options.html#option_general_password',
    (v) => `mysql -h db.example.com -u root -p${v} shop`,
    password,
  ),
  assigned(
    'kubectl-token-flag',
    'https://kubernetes.io/docs/reference/kubectl/kubectl/',
    (v) => `kubectl --token=${v} get pods`,
    (r) => mixed(r, B64URL, 40),
  ),
  assigned(
    'pgpass-line',
    'https://www.postgresql.org/docs/current/libpq-pgpass.html',
    (v) => `db.example.com:5432:orders:app:${v}`,
    password,
  ),
  assigned(
    'ftp-url',
    'https://www.rfc-editor.org/rfc/rfc1738#section-3.2',
    (v) => `ftp://backup:${v}@files.example.com/nightly/`,
    password,
  ),
  assigned(
    'jdbc-password-param',
    'https://jdbc.postgresql.org/documentation/use/#connection-parameters',
    (v) => `jdbc:postgresql://db:5432/orders?user=app&password=${v}`,
    password,
  ),
  assigned(
    'sqlserver-connection-string',
    'https://learn.microsoft.com/en-us/dotnet/framework/data/adonet/connection-string-syntax',
    (v) => `Server=tcp:acme.database.windows.net,1433;Database=orders;User ID=app;Password=${v};Encrypt=True`,
    password,
  ),
  assigned(
    'pypirc-password',
    'https://packaging.python.org/en/latest/specifications/pypirc/',
    (v) => `[internal]\nrepository = https://pypi.example.com\nusername = deploy\npassword = ${v}`,
    password,
  ),
  {
    id: 'pem-encrypted-private-key',
    source: 'https://www.rfc-editor.org/rfc/rfc7468#section-11',
    generate(r) {
      const lines = pemLines(r, 700)
      const label = `ENCRYPTED ${'PRIVATE'} KEY`
      return {
        text: `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----`,
        sensitive: lines,
      }
    },
  },
  {
    id: 'pem-dsa-private-key',
    source: 'https://www.rfc-editor.org/rfc/rfc7468',
    generate(r) {
      const lines = pemLines(r, 440)
      const label = `DSA ${'PRIVATE'} KEY`
      return {
        text: `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----`,
        sensitive: lines,
      }
    },
  },
  assigned(
    'private-token-header-text',
    'https://docs.gitlab.com/api/rest/authentication/#personalprojectgroup-access-tokens',
    (v) => `PRIVATE-TOKEN: ${v}`,
    (r) => mixed(r, B64URL, 26),
  ),
  assigned(
    'proxy-authorization-text',
    'https://www.rfc-editor.org/rfc/rfc9110#section-11.7.2',
    (v) => `Proxy-Authorization: Basic ${v}`,
    (r) => Buffer.from(`proxy:${password(r)}`).toString('base64'),
  ),
]
