import {
  ALNUM,
  B64URL,
  b64,
  b64url,
  crcBody,
  HEX,
  LOWER_ALNUM,
  mixed,
  PASSWORD,
  pemLines,
  type Rng,
  randomB64,
} from './gen.ts'
import { assigned, type SecretFormat } from './types.ts'

/**
 * Secrets recognised by where they stand, not by a prefix: connection strings, assignments, config
 * files, command lines, HTTP headers written into text, PEM blocks and JWTs.
 */

const password = (r: Rng) => mixed(r, PASSWORD, 20)
const user = (r: Rng) => mixed(r, LOWER_ALNUM, 8)

/** A DSN `scheme://user:password@rest`: only the password is sensitive. */
function dsn(id: string, source: string, scheme: string, login: string, rest: string): SecretFormat {
  return assigned(id, source, (v) => `${scheme}://${login}:${v}@${rest}`, password)
}

/** A PEM block (RFC 7468) with random base64 in 64-character lines. */
function pem(id: string, label: string, bytes: number): SecretFormat {
  return {
    id,
    source: 'https://www.rfc-editor.org/rfc/rfc7468',
    generate(r) {
      const lines = pemLines(r, bytes)
      const begin = `-----BEGIN ${label}-----`
      return { text: `${begin}\n${lines.join('\n')}\n${begin.replace('BEGIN', 'END')}`, sensitive: lines }
    },
  }
}

/** A JWT (RFC 7519) signed with HS256; its header is the same in every token and not sensitive. */
export function jwt(r: Rng): { token: string; sensitive: string[] } {
  const header = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))
  const claims = {
    jti: mixed(r, ALNUM, 22),
    sub: `user-${mixed(r, LOWER_ALNUM, 12)}`,
    email: `${mixed(r, LOWER_ALNUM, 8)}@example.com`,
    iat: 1_700_000_000 + r.int(10_000_000),
  }
  const payload = b64url(JSON.stringify(claims))
  const sig = mixed(r, B64URL, 43)
  // The payload's first characters encode `{"jti":"`, the same in every token.
  return { token: `${header}.${payload}.${sig}`, sensitive: [payload.slice(11), sig] }
}

export const CONTEXT_FORMATS: SecretFormat[] = [
  {
    id: 'jwt',
    source: 'https://www.rfc-editor.org/rfc/rfc7519',
    generate(r) {
      const t = jwt(r)
      return { text: t.token, sensitive: t.sensitive }
    },
  },
  {
    id: 'authorization-bearer-jwt-text',
    source: 'https://www.rfc-editor.org/rfc/rfc6750#section-2.1',
    generate(r) {
      const t = jwt(r)
      return { text: `Authorization: Bearer ${t.token}`, sensitive: t.sensitive }
    },
  },
  pem('pem-rsa-private-key', `RSA ${'PRIVATE'} KEY`, 900),
  pem('pem-pkcs8-private-key', `${'PRIVATE'} KEY`, 900),
  pem('pem-ec-private-key', `EC ${'PRIVATE'} KEY`, 121),
  {
    // The OpenSSH key format starts with the magic "openssh-key-v1\0": those characters are not sensitive.
    id: 'pem-openssh-private-key',
    source: 'https://github.com/openssh/openssh-portable/blob/master/PROTOCOL.key',
    generate(r) {
      const random = Buffer.from(randomB64(r, 380), 'base64')
      const body = Buffer.concat([Buffer.from('openssh-key-v1\0'), random]).toString('base64')
      const lines: string[] = []
      for (let i = 0; i < body.length; i += 70) lines.push(body.slice(i, i + 70))
      const label = `OPENSSH ${'PRIVATE'} KEY`
      return {
        text: `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----`,
        sensitive: [lines[0]!.slice(24), ...lines.slice(1)],
      }
    },
  },
  {
    id: 'pgp-private-key-block',
    source: 'https://www.rfc-editor.org/rfc/rfc4880#section-6.2',
    generate(r) {
      const lines = pemLines(r, 500)
      const label = `PGP ${'PRIVATE'} KEY BLOCK`
      return {
        text: `-----BEGIN ${label}-----\n\n${lines.join('\n')}\n=${mixed(r, B64URL, 4)}\n-----END ${label}-----`,
        sensitive: lines,
      }
    },
  },
  dsn(
    'postgres-dsn',
    'https://www.postgresql.org/docs/current/libpq-connect.html#LIBPQ-CONNSTRING-URIS',
    'postgres',
    'app',
    'db.internal.example:5432/orders',
  ),
  dsn(
    'mysql-dsn',
    'https://dev.mysql.com/doc/refman/8.4/en/connecting-using-uri-or-key-value-pairs.html',
    'mysql',
    'root',
    '10.0.0.5:3306/shop',
  ),
  dsn(
    'mongodb-srv-dsn',
    'https://www.mongodb.com/docs/manual/reference/connection-string/',
    'mongodb+srv',
    'svc',
    'cluster0.ab1cd.mongodb.net/?retryWrites=true&w=majority',
  ),
  dsn(
    'redis-dsn',
    'https://www.iana.org/assignments/uri-schemes/prov/redis',
    'rediss',
    'default',
    'cache.example.com:6380/0',
  ),
  dsn('amqp-dsn', 'https://www.rabbitmq.com/docs/uri-spec', 'amqps', 'worker', 'mq.example.com/orders'),
  dsn(
    'https-userinfo-url',
    'https://www.rfc-editor.org/rfc/rfc3986#section-3.2.1',
    'https',
    'deploy',
    'git.example.com/acme/app.git',
  ),
  {
    // A password with reserved characters is percent-encoded in a URI (RFC 3986 §2.1).
    id: 'postgres-dsn-encoded-password',
    source: 'https://www.postgresql.org/docs/current/libpq-connect.html#LIBPQ-CONNSTRING-URIS',
    generate(r) {
      const raw = `${mixed(r, ALNUM, 8)}@${mixed(r, ALNUM, 6)}:/${mixed(r, ALNUM, 6)}#`
      const encoded = encodeURIComponent(raw)
      return { text: `postgresql://app:${encoded}@db.example.com/orders`, sensitive: [encoded] }
    },
  },
  assigned(
    'database-url-env',
    'https://12factor.net/backing-services',
    (v) => `DATABASE_URL=postgres://app:${v}@db.example.com:5432/app`,
    password,
  ),
  {
    id: 'git-credential-url',
    source: 'https://git-scm.com/docs/git-credential-store#_storage_format',
    generate(r) {
      const body = crcBody(r)
      return { text: `https://x-access-token:gh${'s'}_${body}@github.com/acme/app.git`, sensitive: [body] }
    },
  },
  assigned(
    'auth-token-assignment',
    'https://docs.sentry.io/cli/configuration/#configuration-values',
    (v) => `ACME_AUTH_TOKEN=${v}`,
    (r) => mixed(r, ALNUM, 40),
  ),
  assigned(
    'api-key-assignment',
    'https://12factor.net/config',
    (v) => `WEATHER_API_KEY=${v}`,
    (r) => mixed(r, HEX, 32),
  ),
  assigned(
    'secret-assignment',
    'https://12factor.net/config',
    (v) => `SESSION_SECRET=${v}`,
    (r) => mixed(r, B64URL, 48),
  ),
  assigned('password-assignment', 'https://12factor.net/config', (v) => `SMTP_PASSWORD=${v}`, password),
  assigned(
    'export-token-assignment',
    'https://cli.github.com/manual/gh_help_environment',
    (v) => `export DEPLOY_TOKEN="${v}"`,
    (r) => mixed(r, B64URL, 40),
  ),
  assigned(
    'npmrc-auth-token',
    'https://docs.npmjs.com/cli/v10/configuring-npm/npmrc#auth-related-configuration',
    (v) => `//registry.example.com/:_authToken=${v}`,
    (r) => mixed(r, B64URL, 40),
  ),
  assigned(
    'netrc-password',
    'https://www.gnu.org/software/inetutils/manual/html_node/The-_002enetrc-file.html',
    (v) => `machine api.example.com login bot password ${v}`,
    password,
  ),
  assigned(
    'curl-user-password',
    'https://curl.se/docs/manpage.html#-u',
    (v) => `curl -u deploy:${v} https://api.example.com/v1/builds`,
    password,
  ),
  assigned(
    'sshpass-password',
    'https://linux.die.net/man/1/sshpass',
    (v) => `sshpass -p ${v} ssh deploy@10.0.0.7`,
    password,
  ),
  assigned(
    'cookie-header-text',
    'https://www.rfc-editor.org/rfc/rfc6265#section-4.2',
    (v) => `Cookie: session=${v}; theme=dark`,
    (r) => mixed(r, B64URL, 32),
  ),
  assigned(
    'set-cookie-header-text',
    'https://www.rfc-editor.org/rfc/rfc6265#section-4.1',
    (v) => `Set-Cookie: __Host-sid=${v}; Path=/; Secure; HttpOnly`,
    (r) => mixed(r, B64URL, 40),
  ),
  assigned(
    'authorization-basic-text',
    'https://www.rfc-editor.org/rfc/rfc7617#section-2',
    (v) => `Authorization: Basic ${v}`,
    (r) => b64(`${user(r)}:${password(r)}`),
  ),
  assigned(
    'authorization-bearer-opaque-text',
    'https://www.rfc-editor.org/rfc/rfc6750#section-2.1',
    (v) => `Authorization: Bearer ${v}`,
    (r) => mixed(r, B64URL, 40),
  ),
  assigned(
    'x-api-key-header-text',
    'https://docs.anthropic.com/en/api/overview#authentication',
    (v) => `x-api-key: ${v}`,
    (r) => mixed(r, ALNUM, 40),
  ),
  assigned('password-key-value', 'https://www.json.org/', (v) => `password: "${v}"`, password),
  assigned(
    'json-password-field',
    'https://www.json.org/',
    (v) => `{"username":"svc-backup","password":"${v}"}`,
    password,
  ),
  assigned(
    'yaml-client-secret',
    'https://yaml.org/spec/1.2.2/',
    (v) => `client_secret: ${v}`,
    (r) => mixed(r, B64URL, 40),
  ),
  assigned(
    'docker-config-auth',
    'https://docs.docker.com/reference/cli/docker/login/#credential-stores',
    (v) => `{"auths":{"registry.example.com":{"auth":"${v}"}}}`,
    (r) => b64(`${user(r)}:${password(r)}`),
  ),
  {
    id: 'oauth-refresh-form',
    source: 'https://www.rfc-editor.org/rfc/rfc6749#section-6',
    generate(r) {
      const secret = mixed(r, B64URL, 40)
      const refresh = mixed(r, B64URL, 64)
      return {
        text: `grant_type=refresh_token&client_id=agent-app&client_secret=${secret}&refresh_token=${refresh}`,
        sensitive: [secret, refresh],
      }
    },
  },
  {
    id: 'oauth-token-response',
    source: 'https://www.rfc-editor.org/rfc/rfc6749#section-5.1',
    generate(r) {
      const access = mixed(r, B64URL, 48)
      const refresh = mixed(r, B64URL, 64)
      return {
        text: `{"access_token":"${access}","token_type":"Bearer","expires_in":3600,"refresh_token":"${refresh}"}`,
        sensitive: [access, refresh],
      }
    },
  },
]
