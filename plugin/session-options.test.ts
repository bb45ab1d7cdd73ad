import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { isLiveTest, live } from '../fixtures/index.ts'
import { crashlab } from './crashlab-plugin.ts'
import { loadSessionOptions, serializeSessionOptions } from './session-options.ts'

const dir = mkdtempSync(join(tmpdir(), 'crashlab-session-options-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('the redaction and matching options', () => {
  it('crosses provide() as data: RegExps as source and flags, module paths as file URLs', () => {
    const provided = serializeSessionOptions(
      {
        redaction: {
          patterns: [{ id: 'acme', pattern: /acme_\w+/i, hint: 'acme_' }],
          keys: ['x-t'],
          hooks: 'h.ts',
        },
        matching: { ignoreParams: ['x_trace_id'], normalize: ['/abs/n.ts'] },
      },
      '/root',
    )
    expect(JSON.parse(JSON.stringify(provided))).toEqual({
      redaction: {
        patterns: [{ id: 'acme', source: 'acme_\\w+', flags: 'i', hint: 'acme_' }],
        keys: ['x-t'],
        hooks: ['file:///root/h.ts'],
      },
      matching: { ignoreParams: ['x_trace_id'], normalize: ['file:///abs/n.ts'] },
    })
  })

  it('a function where a module path belongs fails when the config loads, saying why', () => {
    expect(() => crashlab({ matching: { normalize: ((r: unknown) => r) as never } })).toThrow(
      /takes module paths, not functions/,
    )
    expect(() => crashlab({ redaction: { patterns: [{ pattern: /x/ } as never] } })).toThrow(/needs an `id`/)
  })

  it('builds the redactor and the normalizers from the modules in a worker', async () => {
    writeFileSync(
      join(dir, 'hooks.mjs'),
      "export default { names: (v) => v.replaceAll('Ada', '[REDACTED:name]') }\n",
    )
    writeFileSync(join(dir, 'norm.mjs'), 'export default [(r) => ({ ...r, model: "any" })]\n')
    writeFileSync(join(dir, 'bad.mjs'), 'export default 42\n')
    const { redactor, matching } = await loadSessionOptions(
      serializeSessionOptions(
        {
          redaction: { patterns: [{ id: 'acme', pattern: /ACME-\d{6}/ }], hooks: 'hooks.mjs' },
          matching: { ignoreParams: ['x'], normalize: 'norm.mjs' },
        },
        dir,
      ),
    )
    expect(redactor?.redact({ note: 'Ada has ACME-123456' }).value).toEqual({
      note: '[REDACTED:name] has [REDACTED:acme]',
    })
    expect(matching?.ignoreParams).toEqual(['x'])
    expect(matching?.normalize?.[0]?.({ model: 'gpt' } as never)).toEqual({ model: 'any' })
    await expect(
      loadSessionOptions(serializeSessionOptions({ matching: { normalize: 'bad.mjs' } }, dir)),
    ).rejects.toThrow(/must be a normalizer function/)
  })
})

describe('live()', () => {
  it('marks a test live and keeps the other options', () => {
    const options = live({ timeout: 5, meta: { crashlab: { run: undefined } } })
    expect(options.timeout).toBe(5)
    expect(isLiveTest({ meta: options.meta })).toBe(true)
    expect(isLiveTest({ meta: { crashlab: { live: false } } })).toBe(false)
    expect(isLiveTest({ meta: {} })).toBe(false)
    // A fresh object each time: Vitest merges a describe's meta into its options object.
    expect(live()).not.toBe(live())
  })
})
