import { describe, expect, it } from 'vitest'
import { isAssignedKey, isAssignedSecret, isCodePath } from './assigned-values.ts'
import { isIdentifier } from './validators.ts'

describe('isAssignedSecret', () => {
  it.each([
    'hunter22!',
    'S3cr3tPassw0rdValue',
    'opaque-value',
    'p@ss:w0rd',
    // a token followed by a bracket in a log line is not a call, nor base64 that starts with `/` a path
    'Qx7kLm2Vz9PbR4tYw8NcHd3J(#',
    'Qx7kLm2Vz9PbR4tYw8NcHd3J[1',
    // nor a token with optional chaining right after it
    'Qx7kLm2Vz9PbR4tYw8NcHd3J)?.*',
    'Qx7kLm2Vz9PbR4tYw8NcHd3J?.trim()',
    'Qx7k+Lm2Vz9/PbR4tYw8NcHd3J]?.x',
    '/QfpZOihacMt72YvQXq/MytPMI8UeyIR3E7F',
    '/QfpZOihacMt72YvQXq/MytPMI8UeyIR3E7F/',
    // three dots inside a long value are characters of it, not an elision
    '5_XNxJwO...FIvpMg09s',
  ])('%s is a value', (v) => {
    expect(isAssignedSecret(v)).toBe(true)
  })

  it.each([
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell or template placeholder, on purpose
    '${OPENAI_API_KEY}',
    '$OPENAI_API_KEY',
    'process.env.OPENAI_API_KEY',
    'os.getenv(',
    'keyring.get_password(',
    'base64.b64decode(raw)',
    'loadHTTPConfig(path)',
    'sk-proj-abc...xyz',
    'z.string()',
    'Optional[str]',
    'string',
    'string;',
    'required',
    'null',
    '/run/secrets/db_password',
    '~/.ssh/id_ed25519',
    'apiKey',
    'userPassword',
    'api_key',
    'self.token',
    'opts?.apiKey',
    'ctx?.env?.API_KEY',
    'config.auth?.token',
    'cfg?.apiKey',
    'YOUR_API_KEY',
    '********',
  ])('%s is not', (v) => {
    expect(isAssignedSecret(v)).toBe(false)
  })
})

describe('isAssignedKey', () => {
  it('turns away fixtures that describe themselves, and keeps other words', () => {
    expect(isAssignedKey('valid-refresh-token')).toBe(false)
    expect(isAssignedKey('test-api-key')).toBe(false)
    expect(isAssignedKey('credentials')).toBe(false)
    expect(isAssignedKey('keyboard-cat')).toBe(true)
    expect(isAssignedKey('q8Zk3Vx9LmP2')).toBe(true)
  })
})

describe('isIdentifier', () => {
  it('knows names made of words from random letters', () => {
    for (const name of ['azureADTokenProvider', 'NonSharedBuffer', 'experimental_toolApprovalSecret']) {
      expect(isIdentifier(name)).toBe(true)
    }
    for (const value of ['xYzAbCqwErTy', 'Summer2024', 'supersecret']) expect(isIdentifier(value)).toBe(false)
  })
})

describe('isCodePath', () => {
  it('reads names in code as code and random characters as not', () => {
    for (const path of [
      'os.getenv',
      'z.string',
      'hashlib.sha256',
      'crypto.randomBytes',
      'toJSON',
      'Deno.env.get',
    ]) {
      expect(isCodePath(path), path).toBe(true)
    }
    for (const token of [
      'Qx7kLm2Vz9PbR4tYw8NcHd3J',
      's.pGgYHPrY0p0PBLISxq4zKMgC',
      'vYLilex0QcxzY8hGGaEHRXCiy1',
    ]) {
      expect(isCodePath(token), token).toBe(false)
    }
  })
})
