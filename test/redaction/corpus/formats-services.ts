import {
  ALNUM,
  B64URL,
  BECH32,
  b64url,
  chars,
  crcBody,
  DIGITS,
  HEX,
  LOWER_ALNUM,
  mixed,
  UPPER_ALNUM,
} from './gen.ts'
import { assigned, prefixed, type SecretFormat } from './types.ts'

/** Developer services: source hosts, chat, payments, package registries, secret managers, SaaS APIs. */

const GITHUB = 'https://github.blog/2021-04-05-behind-githubs-new-authentication-token-formats/'
const GITLAB = 'https://docs.gitlab.com/security/tokens/#token-prefixes'
const SLACK = 'https://api.slack.com/concepts/token-types'
const STRIPE = 'https://docs.stripe.com/keys'
const DOPPLER = 'https://docs.doppler.com/reference/api#authentication'
const VAULT = 'https://developer.hashicorp.com/vault/docs/concepts/tokens#token-prefixes'
const NEWRELIC = 'https://docs.newrelic.com/docs/apis/intro-apis/new-relic-api-keys/'

export const SERVICE_FORMATS: SecretFormat[] = [
  prefixed('github-pat-classic', GITHUB, 'gh' + 'p_', (r) => crcBody(r)),
  prefixed('github-oauth-token', GITHUB, 'gh' + 'o_', (r) => crcBody(r)),
  prefixed('github-user-to-server', GITHUB, 'gh' + 'u_', (r) => crcBody(r)),
  prefixed('github-server-to-server', GITHUB, 'gh' + 's_', (r) => crcBody(r)),
  prefixed('github-refresh-token', GITHUB, 'gh' + 'r_', (r) => crcBody(r)),
  prefixed(
    'github-fine-grained-pat',
    'https://github.blog/changelog/2022-10-18-introducing-fine-grained-personal-access-tokens-for-github/',
    'github' + '_pat_',
    (r) => `${mixed(r, ALNUM, 22)}_${mixed(r, ALNUM, 59)}`,
  ),
  prefixed('gitlab-pat', GITLAB, 'gl' + 'pat-', (r) => mixed(r, B64URL, 20)),
  prefixed('gitlab-pipeline-trigger', GITLAB, 'gl' + 'ptt-', (r) => mixed(r, HEX, 40)),
  prefixed('gitlab-deploy-token', GITLAB, 'gl' + 'dt-', (r) => mixed(r, B64URL, 20)),
  prefixed('gitlab-runner-token', GITLAB, 'gl' + 'rt-', (r) => mixed(r, B64URL, 20)),
  prefixed(
    'slack-bot-token',
    SLACK,
    'xo' + 'xb-',
    (r) => `${chars(r, DIGITS, 12)}-${chars(r, DIGITS, 13)}-${mixed(r, ALNUM, 24)}`,
  ),
  prefixed(
    'slack-user-token',
    SLACK,
    'xo' + 'xp-',
    (r) => `${chars(r, DIGITS, 12)}-${chars(r, DIGITS, 12)}-${chars(r, DIGITS, 13)}-${mixed(r, HEX, 32)}`,
  ),
  prefixed(
    'slack-app-token',
    SLACK,
    'xa' + 'pp-',
    (r) => `1-A${mixed(r, UPPER_ALNUM, 10)}-${chars(r, DIGITS, 13)}-${mixed(r, HEX, 64)}`,
  ),
  {
    id: 'slack-webhook-url',
    source: 'https://api.slack.com/messaging/webhooks',
    generate(r, shape) {
      const secret = mixed(r, ALNUM, 24)
      const team = mixed(shape, UPPER_ALNUM, 8)
      const hook = mixed(shape, UPPER_ALNUM, 10)
      return { text: `https://hooks.slack.com/services/T${team}/B${hook}/${secret}`, sensitive: [secret] }
    },
  },
  prefixed('stripe-secret-live', STRIPE, 'sk' + '_live_', (r) => mixed(r, ALNUM, 99)),
  prefixed('stripe-restricted-live', STRIPE, 'rk' + '_live_', (r) => mixed(r, ALNUM, 99)),
  prefixed('stripe-secret-test', STRIPE, 'sk' + '_test_', (r) => mixed(r, ALNUM, 99)),
  prefixed('stripe-webhook-secret', 'https://docs.stripe.com/webhooks#verify-events', 'wh' + 'sec_', (r) =>
    mixed(r, ALNUM, 32),
  ),
  prefixed(
    'npm-token',
    'https://github.blog/changelog/2021-09-23-npm-has-a-new-access-token-format/',
    'np' + 'm_',
    (r) => crcBody(r),
  ),
  {
    // A PyPI token is a macaroon: its first bytes (the location "pypi.org") are the same in every token.
    id: 'pypi-token',
    source: 'https://pypi.org/help/#apitoken',
    generate(r) {
      const body = mixed(r, B64URL, 150)
      return { text: `py${'pi'}-AgEIcHlwaS5vcmc${body}`, sensitive: [body] }
    },
  },
  prefixed('rubygems-key', 'https://guides.rubygems.org/api-key-scopes/', 'ruby' + 'gems_', (r) =>
    mixed(r, HEX, 48),
  ),
  prefixed(
    'nuget-key',
    'https://learn.microsoft.com/en-us/nuget/nuget-org/scoped-api-keys',
    'oy' + '2',
    (r) => mixed(r, LOWER_ALNUM, 43),
  ),
  prefixed(
    'docker-hub-pat',
    'https://docs.docker.com/security/for-developers/access-tokens/',
    'dckr' + '_pat_',
    (r) => mixed(r, B64URL, 27),
  ),
  prefixed('notion-legacy-token', 'https://developers.notion.com/docs/authorization', 'sec' + 'ret_', (r) =>
    mixed(r, ALNUM, 43),
  ),
  prefixed('notion-token', 'https://developers.notion.com/docs/authorization', 'nt' + 'n_', (r) =>
    mixed(r, ALNUM, 46),
  ),
  {
    id: 'doppler-service-token',
    source: DOPPLER,
    generate(r) {
      const body = mixed(r, ALNUM, 40)
      return { text: `dp.${'st'}.prd.${body}`, sensitive: [body] }
    },
  },
  prefixed('doppler-personal-token', DOPPLER, 'dp.' + 'pt.', (r) => mixed(r, ALNUM, 43)),
  prefixed('doppler-cli-token', DOPPLER, 'dp.' + 'ct.', (r) => mixed(r, ALNUM, 43)),
  prefixed('vault-service-token', VAULT, 'hv' + 's.', (r) => `CAESI${mixed(r, B64URL, 90)}`),
  prefixed('vault-batch-token', VAULT, 'hv' + 'b.', (r) => `AAAAAQ${mixed(r, B64URL, 132)}`),
  prefixed('newrelic-user-key', NEWRELIC, 'NR' + 'AK-', (r) => mixed(r, UPPER_ALNUM, 27)),
  prefixed('newrelic-license-key', NEWRELIC, '', (r) => mixed(r, HEX, 36), 'NR' + 'AL'),
  prefixed('newrelic-insert-key', NEWRELIC, 'NR' + 'II-', (r) => mixed(r, B64URL, 32)),
  prefixed(
    'supabase-access-token',
    'https://supabase.com/docs/guides/platform/personal-access-tokens',
    'sb' + 'p_',
    (r) => mixed(r, HEX, 40),
  ),
  prefixed('supabase-secret-key', 'https://supabase.com/docs/guides/api/api-keys', 'sb' + '_secret_', (r) =>
    mixed(r, B64URL, 31),
  ),
  prefixed(
    'figma-pat',
    'https://developers.figma.com/docs/rest-api/personal-access-tokens/',
    'fi' + 'gd_',
    (r) => mixed(r, B64URL, 40),
  ),
  prefixed('age-secret-key', 'https://age-encryption.org/v1', 'AGE-SECRET' + '-KEY-1', (r) =>
    mixed(r, BECH32.toUpperCase(), 58),
  ),
  prefixed(
    'shopify-access-token',
    'https://shopify.dev/docs/apps/build/authentication-authorization/access-tokens',
    'sh' + 'pat_',
    (r) => mixed(r, HEX, 32),
  ),
  prefixed(
    'shopify-shared-secret',
    'https://shopify.dev/docs/apps/build/authentication-authorization/access-tokens',
    'sh' + 'pss_',
    (r) => mixed(r, HEX, 32),
  ),
  prefixed(
    'sendgrid-key',
    'https://www.twilio.com/docs/sendgrid/ui/account-and-settings/api-keys',
    'S' + 'G.',
    (r) => `${mixed(r, B64URL, 22)}.${mixed(r, B64URL, 43)}`,
  ),
  prefixed(
    'mailgun-key',
    'https://documentation.mailgun.com/docs/mailgun/api-reference/authentication',
    'ke' + 'y-',
    (r) => mixed(r, HEX, 32),
  ),
  {
    id: 'mailchimp-key',
    source: 'https://mailchimp.com/developer/marketing/guides/quick-start/#generate-your-api-key',
    generate(r, shape) {
      const key = mixed(r, HEX, 32)
      return { text: `${key}-us${1 + shape.int(21)}`, sensitive: [key] }
    },
  },
  {
    // base64 of the bot's id, then a timestamp and an HMAC: only the first segment is public.
    id: 'discord-bot-token',
    source: 'https://discord.com/developers/docs/reference#authentication',
    generate(r, shape) {
      const id = b64url(`1${chars(shape, DIGITS, 18)}`)
      const rest = `G${mixed(r, B64URL, 5)}.${mixed(r, B64URL, 38)}`
      return { text: `${id}.${rest}`, sensitive: [rest] }
    },
  },
  {
    id: 'discord-webhook-url',
    source: 'https://discord.com/developers/docs/resources/webhook#execute-webhook',
    generate(r, shape) {
      const token = mixed(r, B64URL, 68)
      return {
        text: `https://discord.com/api/webhooks/1${chars(shape, DIGITS, 18)}/${token}`,
        sensitive: [token],
      }
    },
  },
  {
    id: 'telegram-bot-token',
    source: 'https://core.telegram.org/bots/api#authorizing-your-bot',
    generate(r, shape) {
      const secret = `AA${mixed(r, B64URL, 33)}`
      return { text: `${1 + shape.int(9)}${chars(shape, DIGITS, 9)}:${secret}`, sensitive: [secret] }
    },
  },
  assigned(
    'twilio-auth-token-env',
    'https://www.twilio.com/docs/iam/api/authtoken',
    (v) => `TWILIO_AUTH_TOKEN=${v}`,
    (r) => mixed(r, HEX, 32),
  ),
  prefixed('linear-key', 'https://linear.app/developers/graphql#personal-api-keys', 'lin' + '_api_', (r) =>
    mixed(r, ALNUM, 40),
  ),
  prefixed(
    'atlassian-api-token',
    'https://support.atlassian.com/atlassian-account/docs/manage-api-tokens-for-your-atlassian-account/',
    'ATA' + 'TT',
    (r) => `3xFfGF0${mixed(r, B64URL, 172)}=${mixed(r, HEX.toUpperCase(), 8)}`,
  ),
  prefixed(
    'postman-key',
    'https://learning.postman.com/docs/developer/postman-api/authentication/',
    'PM' + 'AK-',
    (r) => `${mixed(r, HEX, 24)}-${mixed(r, HEX, 34)}`,
  ),
  prefixed(
    'grafana-service-account-token',
    'https://grafana.com/docs/grafana/latest/administration/service-accounts/',
    'gl' + 'sa_',
    (r) => `${mixed(r, ALNUM, 32)}_${mixed(r, HEX, 8)}`,
  ),
  prefixed('sentry-user-token', 'https://docs.sentry.io/account/auth-tokens/', 'sn' + 'tryu_', (r) =>
    mixed(r, HEX, 64),
  ),
  prefixed(
    'square-access-token',
    'https://developer.squareup.com/docs/build-basics/access-tokens',
    'EA' + 'AA',
    (r) => mixed(r, B64URL, 60),
  ),
  prefixed(
    'square-oauth-secret',
    'https://developer.squareup.com/docs/oauth-api/overview',
    'sq0' + 'csp-',
    (r) => mixed(r, B64URL, 43),
  ),
  prefixed(
    'airtable-pat',
    'https://airtable.com/developers/web/guides/personal-access-tokens',
    'pa' + 't',
    (r) => `${mixed(r, ALNUM, 14)}.${mixed(r, HEX, 64)}`,
  ),
  prefixed(
    'contentful-pat',
    'https://www.contentful.com/developers/docs/references/authentication/',
    'CF' + 'PAT-',
    (r) => mixed(r, B64URL, 43),
  ),
  prefixed('netlify-pat', 'https://docs.netlify.com/api/get-started/#authentication', 'nf' + 'p_', (r) =>
    mixed(r, ALNUM, 36),
  ),
  {
    id: 'terraform-cloud-token',
    source: 'https://developer.hashicorp.com/terraform/cloud-docs/users-teams-organizations/api-tokens',
    generate(r) {
      const a = mixed(r, ALNUM, 14)
      const b = mixed(r, B64URL, 67)
      return { text: `${a}.atlas${'v1'}.${b}`, sensitive: [a, b] }
    },
  },
  prefixed(
    'pulumi-token',
    'https://www.pulumi.com/docs/pulumi-cloud/access-management/access-tokens/',
    'pu' + 'l-',
    (r) => mixed(r, HEX, 40),
  ),
  prefixed(
    'bitbucket-app-password',
    'https://support.atlassian.com/bitbucket-cloud/docs/app-passwords/',
    'AT' + 'BB',
    (r) => mixed(r, ALNUM, 32),
  ),
  {
    // `sk.` + base64url JSON whose first bytes name the account, then a signature.
    id: 'mapbox-secret-token',
    source: 'https://docs.mapbox.com/accounts/guides/tokens/',
    generate(r) {
      const payload = b64url(`{"u":"acme-maps","a":"${mixed(r, LOWER_ALNUM, 25)}"}`)
      const sig = mixed(r, B64URL, 22)
      return { text: `s${'k'}.${payload}.${sig}`, sensitive: [payload.slice(24), sig] }
    },
  },
  prefixed(
    'onepassword-service-account',
    'https://developer.1password.com/docs/service-accounts/',
    'op' + 's_',
    (r) => `eyJ${mixed(r, B64URL, 200)}`,
  ),
  prefixed(
    'dynatrace-token',
    'https://docs.dynatrace.com/docs/manage/identity-access-management/access-tokens-and-oauth-clients/access-tokens#token-format',
    'dt0' + 'c01.',
    (r) => `${mixed(r, UPPER_ALNUM, 24)}.${mixed(r, UPPER_ALNUM, 64)}`,
  ),
  prefixed('readme-key', 'https://docs.readme.com/main/reference/intro/authentication', 'rd' + 'me_', (r) =>
    mixed(r, HEX, 70),
  ),
  prefixed('prefect-key', 'https://docs.prefect.io/v3/manage/cloud/manage-users/api-keys', 'pn' + 'u_', (r) =>
    mixed(r, ALNUM, 36),
  ),
  prefixed(
    'shippo-live-token',
    'https://docs.goshippo.com/docs/guides_general/authentication/',
    'shippo' + '_live_',
    (r) => mixed(r, HEX, 40),
  ),
  prefixed(
    'dropbox-short-lived-token',
    'https://developers.dropbox.com/oauth-guide',
    's' + 'l.',
    (r) => `u.${mixed(r, B64URL, 140)}`,
  ),
  prefixed('hashicorp-vault-legacy-token', VAULT, 'VAULT_TOKEN=' + 's.', (r) => mixed(r, ALNUM, 24)),
  prefixed(
    'cloudinary-url',
    'https://cloudinary.com/documentation/node_integration#configuration',
    'cloudinary://412345678901234:',
    (r) => mixed(r, B64URL, 27),
    '@acme',
  ),
  prefixed(
    'facebook-page-token',
    'https://developers.facebook.com/docs/facebook-login/guides/access-tokens',
    'EA' + 'AB',
    (r) => mixed(r, ALNUM, 180),
  ),
  prefixed(
    'heroku-api-key',
    'https://devcenter.heroku.com/articles/authentication',
    'HR' + 'KU-',
    (r) => `AA${mixed(r, B64URL, 58)}`,
  ),
  prefixed(
    'alibaba-access-key-id',
    'https://www.alibabacloud.com/help/en/ram/user-guide/create-an-accesskey-pair',
    'LT' + 'AI',
    (r) => mixed(r, ALNUM, 20),
  ),
]
