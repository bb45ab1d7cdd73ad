import { describe, expect, it } from 'vitest'
import { CrashlabError } from '../errors.ts'
import { parseAgentCase } from './agentcase/parse-agent-case.ts'
import { validateAgentCase } from './agentcase/validate-agent-case.ts'
import { parseCassette } from './cassette-parse.ts'
import { serializeCassette } from './cassette-serialize.ts'
import { hostileCases } from './internal/test-hostile-inputs.ts'
import { buildRealisticRun, cassetteOf } from './internal/test-runs.ts'

/**
 * Both loaders under hostile shapes, in process: 10,000 cases (deep nests up to 6,000 levels, objects and
 * arrays up to 300,000 entries, keys and values up to 5 million characters, swaps, removals, cuts).
 * Every outcome is a load or a CrashlabError with the loader's own code, never a RangeError, and no
 * message is longer than MAX_MESSAGE. test/cli-bad-input.test.ts takes a sample of the same cases to
 * every CLI command that reads a file or a store.
 */
const CASES = 10_000
const MAX_MESSAGE = 8 * 1024

function outcome(load: () => unknown, prefix: string): string {
  try {
    load()
    return 'ok'
  } catch (err) {
    if (!(err instanceof CrashlabError) || !err.code.startsWith(prefix)) {
      throw new Error(`not a typed ${prefix}* error: ${(err as Error)?.stack ?? err}`)
    }
    expect(err.message.length).toBeLessThanOrEqual(MAX_MESSAGE)
    return err.code
  }
}

describe('the loaders under deep, wide and long inputs', () => {
  it(`${CASES} cases: a load or a coded error with a bounded message, never an untyped error`, () => {
    const tally = new Map<string, number>()
    const shapes = new Map<string, number>()
    let cases = 0
    for (const c of hostileCases(CASES, 7)) {
      cases++
      shapes.set(c.shape, (shapes.get(c.shape) ?? 0) + 1)
      const results =
        c.format === 'cassette'
          ? [outcome(() => parseCassette(c.text), 'E_CASSETTE_')]
          : [
              outcome(() => parseAgentCase(c.text), 'E_AGENTCASE_'),
              ...(c.value === undefined ? [] : [outcome(() => validateAgentCase(c.value), 'E_AGENTCASE_')]),
            ]
      for (const r of results) tally.set(r, (tally.get(r) ?? 0) + 1)
    }
    expect(cases).toBe(CASES)
    // Every shape was tried, and the bounds were reached from both loaders.
    for (const shape of ['deep', 'wide', 'long', 'swap', 'remove', 'cut'])
      expect(shapes.get(shape)).toBeGreaterThan(1000)
    for (const code of [
      'ok',
      'E_CASSETTE_MALFORMED',
      'E_CASSETTE_INVALID',
      'E_CASSETTE_TOO_LARGE',
      'E_AGENTCASE_MALFORMED',
      'E_AGENTCASE_INVALID',
      'E_AGENTCASE_TOO_LARGE',
    ]) {
      expect(tally.get(code) ?? 0, code).toBeGreaterThan(0)
    }
  }, 300_000)

  it('the three reported inputs: 300,000 header entries, 5,000 nested arrays, a 5-million-character key', () => {
    const headers: Record<string, number> = {}
    for (let i = 0; i < 300_000; i++) headers[`h${i}`] = 1
    const text = `{"format":"crashlab.cassette","version":1,"creator":{"name":"crashlab","version":"0"},"run":{"steps":[{"request":{"wire":{"headers":${JSON.stringify(headers)}}}}]}}`
    expect(outcome(() => parseCassette(text), 'E_CASSETTE_')).toBe('E_CASSETTE_TOO_LARGE')

    let deep: unknown = []
    for (let i = 0; i < 5000; i++) deep = [deep]
    const agentCase = { format_name: 'agentcase', format_version: '0.1', extensions: { deep } }
    expect(outcome(() => validateAgentCase(agentCase), 'E_AGENTCASE_')).toBe('E_AGENTCASE_MALFORMED')

    const key = 'k'.repeat(5_000_000)
    const valid = JSON.parse(serializeCassette(cassetteOf(buildRealisticRun({ steps: 2, seed: 1 }))))
    valid.run[key] = 1
    const long = JSON.stringify(valid)
    let message = ''
    try {
      parseCassette(long)
    } catch (err) {
      message = (err as Error).message
    }
    expect(message).toContain('5000000 characters')
    expect(message.length).toBeLessThan(4096)
    const ac = { format_name: 'agentcase', format_version: '0.1', [key]: 1 }
    expect(outcome(() => validateAgentCase(ac), 'E_AGENTCASE_')).toBe('E_AGENTCASE_INVALID')
  })

  it('stops validating a long list of bad steps or events after 1,000 issues', () => {
    const steps = Array.from({ length: 50_000 }, () => ({ type: 'llm' }))
    const text = JSON.stringify({ format: 'crashlab.cassette', version: 1, creator: {}, run: { steps } })
    let error: CrashlabError | undefined
    try {
      parseCassette(text)
    } catch (err) {
      error = err as CrashlabError
    }
    expect(error?.code).toBe('E_CASSETTE_INVALID')
    expect(error?.message).toMatch(/\d+\+ problems, checking stopped there/)
    expect(error!.issues.length).toBeLessThan(1100)
  })
})
