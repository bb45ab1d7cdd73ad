import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createRedactor } from '../redact/index.ts'
import { VERSION } from '../version.ts'
import { loadCassette } from './cassette-load.ts'
import { serializeCassette } from './cassette-serialize.ts'
import { writeCassette } from './cassette-write.ts'
import { failure } from './internal/test-failure.ts'
import { buildRealisticRun, writtenCassetteOf } from './internal/test-runs.ts'
import type { Run } from './schema/run.ts'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'crashlab-write-'))
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

const sample = (seed = 3): Run => buildRealisticRun({ steps: 5, seed })

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}

describe('writeCassette', () => {
  it('creates the folder and writes the canonical envelope, returning what it wrote', () => {
    const run = sample()
    const path = join(dir, 'a', 'b', 'refund.cassette.json')
    const written = writeCassette(path, run)
    expect(written).toEqual(writtenCassetteOf(run))
    expect(written.creator).toEqual({ name: 'crashlab', version: VERSION })
    expect(readFileSync(path, 'utf8')).toBe(serializeCassette(written))
    expect(loadCassette(path)).toEqual(written)
    expect(readdirSync(join(dir, 'a', 'b'))).toEqual(['refund.cassette.json'])
  })

  it('replaces an existing cassette', () => {
    const path = join(dir, 'c.cassette.json')
    writeCassette(path, sample(1))
    const second = writeCassette(path, sample(2))
    expect(loadCassette(path)).toEqual(second)
    expect(readdirSync(dir)).toEqual(['c.cassette.json'])
  })

  it('neither mutates the run nor shares objects with it', () => {
    const run = deepFreeze(sample())
    const before = structuredClone(run)
    const written = writeCassette(join(dir, 'c.json'), run) // a frozen input throws on any write attempt
    expect(run).toEqual(before)
    expect(written.run).not.toBe(run)
    expect(written.run.steps[0]).not.toBe(run.steps[0])
    expect(written.run.metadata).not.toBe(run.metadata)
  })

  it('does not mutate a run it redacts, and records what it replaced', () => {
    const run = sample()
    const step = run.steps.find((s) => s.type === 'llm')!
    step.request.wire.headers.authorization = 'Bearer abc123def456ghi789'
    deepFreeze(run)
    const written = writeCassette(join(dir, 'c.json'), run)
    expect(step.request.wire.headers.authorization).toBe('Bearer abc123def456ghi789')
    expect(written.run.redaction.status).toBe('redacted')
    expect(written.run.redaction.records).toEqual([
      { path: `/run/steps/${step.index}/request/wire/headers/authorization`, rule: 'sensitive-key' },
    ])
    expect(run.redaction).toEqual({ status: 'none', records: [] })
  })

  it('keeps the redaction records the run already carried and adds new ones once', () => {
    const run = { ...sample(), metadata: { password: 'hunter2' } }
    run.redaction = { status: 'redacted', records: [{ path: '/run/input', rule: 'capture-hook' }] }
    const written = writeCassette(join(dir, 'c.json'), run)
    expect(written.run.redaction).toEqual({
      status: 'redacted',
      records: [
        { path: '/run/input', rule: 'capture-hook' },
        { path: '/run/metadata/password', rule: 'sensitive-key' },
      ],
    })
    // writing the written run again finds only markers, and adds nothing
    expect(writeCassette(join(dir, 'c.json'), written.run).run.redaction).toEqual(written.run.redaction)
  })

  it('marks the cassette partial when a redaction rule failed, and passes the warning on', () => {
    const redactor = createRedactor({
      hooks: {
        fragile: (v) => {
          if (v.includes('broken')) throw new Error('hook bug')
          return undefined
        },
      },
    })
    const run = { ...sample(), input: 'it arrived broken' }
    const warnings: string[] = []
    const written = writeCassette(join(dir, 'c.json'), run, { redactor, onWarning: (w) => warnings.push(w) })
    expect(written.run.redaction.status).toBe('partial')
    expect(written.run.completeness).toBe('partial')
    expect(written.run.input).toBe('[REDACTED:rule-failed]')
    expect(written.run.redaction.records).toContainEqual({ path: '/run/input', rule: 'fragile' })
    expect(warnings.length).toBeGreaterThan(0)
    expect(warnings[0]).toMatch(
      new RegExp(`^\\[crashlab\\] while redacting ${join(dir, 'c.json')}: redaction rule "fragile"`),
    )
    expect(warnings.join('\n')).not.toContain('arrived broken')
    // an already degraded run stays degraded: partial only lowers `complete`
    const degraded = writeCassette(
      join(dir, 'd.json'),
      { ...run, completeness: 'degraded' },
      { redactor, onWarning() {} },
    )
    expect(degraded.run.completeness).toBe('degraded')
  })

  it('warns when the cassette is over the size loading accepts by default, and still writes it', () => {
    const warnings: string[] = []
    const path = join(dir, 'big.cassette.json')
    const small = writeCassette(path, sample(), { onWarning: (w) => warnings.push(w) })
    expect(warnings).toEqual([])
    const big = writeCassette(
      path,
      { ...sample(), output: 'x'.repeat(17 * 2 ** 20) },
      { onWarning: (w) => warnings.push(w) },
    )
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain(`cassette ${path} is 17.0 MiB, over the 16 MiB`)
    expect(warnings[0]).toContain('`maxBytes`')
    expect(loadCassette(path, { maxBytes: 18 * 2 ** 20 })).toEqual(big)
    expect(big).not.toEqual(small)
  })

  it('names the redaction rule when redaction broke a field the format needs', () => {
    const redactor = createRedactor({ patterns: [{ id: 'ulid-like', pattern: /\b[0-9A-Z]{26}\b/ }] })
    const err = failure(() => writeCassette(join(dir, 'c.json'), sample(), { redactor }))
    expect(err.code).toBe('E_CASSETTE_INVALID')
    expect(err.issues.map((i) => i.path)).toEqual(['$.run.id'])
    expect(err.message).toContain('Redaction replaced values the format needs (rule "ulid-like")')
    expect(readdirSync(dir)).toEqual([])
  })

  describe('refuses an invalid run and writes nothing', () => {
    const cases: Array<[string, (run: Run) => void, string[]]> = [
      ['a step out of order', (r) => (r.steps[1]!.index = 7), ['$.run.steps[1].index']],
      [
        'a bad status and a missing field',
        (r) => {
          ;(r as { status: string }).status = 'done'
          delete (r as Partial<Run>).tags
        },
        ['$.run.status', '$.run.tags'],
      ],
      ['a Date in metadata', (r) => (r.metadata = { when: new Date(0) as never }), ['$.run.metadata.when']],
      ['NaN in tool arguments', (r) => (r.input = { amount: Number.NaN }), ['$.run.input.amount']],
      ['a Map', (r) => (r.output = new Map() as never), ['$.run.output']],
      ['undefined in an array', (r) => (r.input = [1, undefined] as never), ['$.run.input[1]']],
      ['a bigint', (r) => (r.metadata = { big: 1n as never }), ['$.run.metadata.big']],
      [
        'a cycle',
        (r) => {
          const loop: Record<string, unknown> = {}
          loop.self = loop
          r.metadata = loop as never
        },
        ['$.run.metadata.self'],
      ],
    ]
    it.each(cases)('%s', (_, spoil, paths) => {
      const path = join(dir, 'sub', 'c.cassette.json')
      const run = sample()
      spoil(run)
      const err = failure(() => writeCassette(path, run))
      expect(err.code).toBe('E_CASSETTE_INVALID')
      expect(err.issues.map((i) => i.path).sort()).toEqual([...paths].sort())
      expect(err.message).toContain(`refusing to write cassette ${path}`)
      expect(err.message).toContain('Nothing was written')
      for (const p of paths) expect(err.message).toContain(`→ at ${p}`)
      expect(readdirSync(dir)).toEqual([])
    })

    it('leaves an existing cassette untouched', () => {
      const path = join(dir, 'c.cassette.json')
      const good = writeCassette(path, sample())
      const bad = { ...sample(), status: 'done' } as unknown as Run
      expect(failure(() => writeCassette(path, bad)).code).toBe('E_CASSETTE_INVALID')
      expect(loadCassette(path)).toEqual(good)
      expect(readdirSync(dir)).toEqual(['c.cassette.json'])
    })

    it('reports nesting too deep to write instead of overflowing the stack', () => {
      let deep: unknown = 'bottom'
      for (let i = 0; i < 200_000; i++) deep = [deep]
      const err = failure(() => writeCassette(join(dir, 'c.json'), { ...sample(), input: deep as never }))
      expect(err.code).toBe('E_CASSETTE_INVALID')
      expect(err.issues[0]?.code).toBe('too_deep')
      expect(err.issues[0]?.path.startsWith('$.run.input[0][0]')).toBe(true)
      expect(readdirSync(dir)).toEqual([])
    })
  })

  describe('a failed write (E_WRITE_FAILED) leaves no temp file and the target as it was', () => {
    it('when the folder is a file', () => {
      writeFileSync(join(dir, 'blocker'), 'not a folder')
      const err = failure(() => writeCassette(join(dir, 'blocker', 'c.json'), sample()))
      expect(err.code).toBe('E_WRITE_FAILED')
      expect(err.message).toContain(join(dir, 'blocker', 'c.json'))
      expect(readdirSync(dir)).toEqual(['blocker'])
      expect(readFileSync(join(dir, 'blocker'), 'utf8')).toBe('not a folder')
    })

    it('when the target is a folder (the temp file is written, the rename fails)', () => {
      const target = join(dir, 'c.cassette.json')
      mkdirSync(target)
      writeFileSync(join(target, 'keep'), 'x')
      const err = failure(() => writeCassette(target, sample()))
      expect(err.code).toBe('E_WRITE_FAILED')
      expect(err.message).toContain('Nothing was changed')
      expect(readdirSync(dir)).toEqual(['c.cassette.json'])
      expect(readdirSync(target)).toEqual(['keep'])
    })
  })
})
