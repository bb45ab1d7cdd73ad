import { afterEach, describe, expect, it } from 'vitest'
import { CrashlabError } from '../errors.ts'
import { createRedactor } from './create-redactor.ts'
import { FAILED_MARKER, redactWalk, type WalkState } from './internal/redact-walk.ts'
import { compileRules } from './internal/rule-set.ts'
import { redactDocument } from './redact-document.ts'
import { redaction } from './redaction.ts'

afterEach(() => redaction.reset())

describe('createRedactor', () => {
  it('adds user patterns, keys and hooks to the defaults', () => {
    const redactor = createRedactor({
      patterns: [{ id: 'acme-ticket', pattern: /\bACME-\d{6}\b/ }],
      keys: ['x-tenant-secret'],
      hooks: { emails: (v) => v.replace(/[\w.+-]+@[\w-]+\.\w+/g, '[REDACTED:email]') },
    })
    const { value, records } = redactor.redact({
      note: 'ticket ACME-123456 from jane@example.com',
      headers: { X_TENANT_SECRET: 'tenant-value', authorization: 'Basic dXNlcjpwYXNz' },
    })
    expect(value).toEqual({
      note: 'ticket [REDACTED:acme-ticket] from [REDACTED:email]',
      headers: { X_TENANT_SECRET: '[REDACTED:sensitive-key]', authorization: '[REDACTED:sensitive-key]' },
    })
    expect(records.map((r) => `${r.path} ${r.rule}`)).toEqual([
      '/note acme-ticket',
      '/note emails',
      '/headers/X_TENANT_SECRET sensitive-key',
      '/headers/authorization sensitive-key',
    ])
  })

  it('uses a custom marker and only the `secret` group when there is one', () => {
    const redactor = createRedactor({
      patterns: [{ id: 'pin', pattern: /(?<pre>PIN )(?<secret>\d{4})/, marker: '****' }],
    })
    expect(redactor.redact({ s: 'PIN 1234 ok' }).value.s).toBe('PIN **** ok')
  })

  it('drops the built-ins with useDefaults: false', () => {
    const redactor = createRedactor({ useDefaults: false, useGlobalRules: false })
    const doc = { authorization: 'Bearer abcdefgh12345678' }
    expect(redactor.redact(doc).value).toBe(doc)
    expect(redactor.patterns()).toEqual([])
  })

  it('passes the path and key to hooks', () => {
    const seen: string[] = []
    const redactor = createRedactor({
      hooks: [{ id: 'spy', fn: (_v, ctx) => void seen.push(`${ctx.path}|${ctx.key}`) }],
    })
    redactor.redact({ a: ['x'], 'b/c': 'y' })
    expect(seen).toEqual(['/a/0|undefined', '/b~1c|b/c'])
  })

  it('rejects invalid rules with E_REDACTION_RULE at configuration time', () => {
    expect(() => createRedactor({ patterns: [{ id: 'bad', pattern: 'x' as unknown as RegExp }] })).toThrow(
      CrashlabError,
    )
    expect(() => createRedactor({ hooks: [{ id: '', fn: () => undefined }] })).toThrow(
      /E_REDACTION_RULE|hook/,
    )
    try {
      redaction.addPattern('bad', 'nope' as unknown as RegExp)
      expect.unreachable()
    } catch (err) {
      expect((err as CrashlabError).code).toBe('E_REDACTION_RULE')
    }
  })
})

describe('failing rules', () => {
  it('drops the value a hook throws on, marks the result partial and names rule and path only', () => {
    const secret = 'hunter2-but-longer'
    const redactor = createRedactor({
      hooks: {
        explode: (v) => {
          if (v.includes('hunter')) throw new Error(`cannot handle ${v}`)
          return undefined
        },
      },
    })
    const result = redactor.redact({ ok: 'fine', bad: { deep: secret } })
    expect(result.value).toEqual({ ok: 'fine', bad: { deep: FAILED_MARKER } })
    expect(result.partial).toBe(true)
    expect(result.records).toEqual([{ path: '/bad/deep', rule: 'explode', marker: FAILED_MARKER }])
    expect(result.warnings).toHaveLength(1)
    expect(result.warnings[0]).toContain('"explode"')
    expect(result.warnings[0]).toContain('/bad/deep')
    expect(JSON.stringify(result)).not.toContain('hunter')
  })

  it('treats a hook that returns a non-string as failed', () => {
    const redactor = createRedactor({ hooks: { wrong: () => 42 as unknown as string } })
    const result = redactor.redact({ a: 'x' })
    expect(result.value).toEqual({ a: FAILED_MARKER })
    expect(result.partial).toBe(true)
  })

  it('drops the value when a pattern rule throws, and keeps going', () => {
    const rules = compileRules(
      [],
      [
        {
          id: 'boom',
          marker: '[REDACTED:boom]',
          hints: [],
          scan: () => {
            throw new RangeError('stack')
          },
        },
      ],
    )
    const state: WalkState = {
      rules,
      isSensitive: () => false,
      hooks: [],
      records: [],
      warnings: [],
      partial: false,
    }
    const out = redactWalk({ a: 'x', b: 2 }, state, [], undefined, false)
    expect(out).toEqual({ a: FAILED_MARKER, b: 2 })
    expect(state.partial).toBe(true)
    expect(state.warnings[0]).toMatch(/"boom" failed at \/a \(RangeError\)/)
  })

  it('is not partial when every rule succeeded', () => {
    const result = redactDocument({ a: 'plain' })
    expect(result.partial).toBe(false)
    expect(result.warnings).toEqual([])
  })
})

describe('redaction (process-wide rules)', () => {
  it('adds to the defaults for redactDocument and for redactors created before the rule', () => {
    const early = createRedactor()
    redaction.addPattern('acme', /ACME-\d{4}/)
    redaction.addKey('x-tenant')
    redaction.addHook('upper', (v) => (v === 'shout' ? '[REDACTED:shout]' : undefined))
    const doc = { a: 'id ACME-1234', 'X-Tenant': 't1', c: 'shout', d: `sk-${'A1b2C3d4E5f6G7h8I9j0'}` }
    const expected = {
      a: 'id [REDACTED:acme]',
      'X-Tenant': '[REDACTED:sensitive-key]',
      c: '[REDACTED:shout]',
      d: '[REDACTED:openai-key]',
    }
    expect(redactDocument(doc).value).toEqual(expected)
    expect(early.redact(doc).value).toEqual(expected)
  })

  it('is ignored by a redactor created with useGlobalRules: false, and cleared by reset()', () => {
    redaction.addKey('ticket')
    expect(createRedactor({ useGlobalRules: false }).redact({ ticket: 'x' }).value).toEqual({ ticket: 'x' })
    expect(redactDocument({ ticket: 'x' }).value).toEqual({ ticket: '[REDACTED:sensitive-key]' })
    redaction.reset()
    expect(redactDocument({ ticket: 'x' }).value).toEqual({ ticket: 'x' })
  })

  it('replaces a rule registered again under the same id', () => {
    redaction.addPattern('acme', /ACME-1/)
    redaction.addPattern('acme', /ACME-2/)
    expect(redactDocument({ a: 'ACME-1 ACME-2' }).value.a).toBe('ACME-1 [REDACTED:acme]')
  })
})

describe('the Redactor object', () => {
  it('redacts one string at a given path and answers key questions', () => {
    const redactor = createRedactor({ keys: ['x-tenant-secret'], useGlobalRules: false })
    const result = redactor.redactString(`token sk-${'A1b2C3d4E5f6G7h8I9j0'}`, '/run/note')
    expect(result.value).toBe('token [REDACTED:openai-key]')
    expect(result.records).toEqual([
      { path: '/run/note', rule: 'openai-key', marker: '[REDACTED:openai-key]' },
    ])
    expect(redactor.isSensitiveKey('X_TENANT_SECRET')).toBe(true)
    expect(redactor.isSensitiveKey('secretary')).toBe(false)
  })

  it('does not loop on a cyclic object', () => {
    const doc: Record<string, unknown> = { password: 'p' }
    doc.self = doc
    const { value } = createRedactor().redact(doc)
    expect((value as Record<string, unknown>).password).toBe('[REDACTED:sensitive-key]')
  })
})
