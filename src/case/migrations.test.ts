import { describe, expect, it } from 'vitest'
import { parseCassette } from './cassette-parse.ts'
import { serializeCassette } from './cassette-serialize.ts'
import { failure } from './internal/test-failure.ts'
import { buildRealisticRun, cassetteOf } from './internal/test-runs.ts'
import { CASSETTE_MIGRATIONS, type CassetteMigration, migrateCassette } from './migrations.ts'
import { CASSETTE_VERSION } from './schema/cassette.ts'

const SOURCE = 'old.cassette.json'
const current = cassetteOf(buildRealisticRun({ steps: 3, seed: 11 }))

/**
 * A made-up format version 0, as an older crashlab might have written it: the run sat under `recording`
 * and had no `tags` or `fixes` yet. The step below is what a real migration would look like.
 */
function versionZero(): Record<string, unknown> {
  const { run, ...envelope } = structuredClone(current) as unknown as Record<string, Record<string, unknown>>
  const { tags: _tags, fixes: _fixes, ...oldRun } = run!
  return { ...envelope, version: 0, recording: oldRun }
}

const zeroToOne: CassetteMigration = {
  from: 0,
  to: 1,
  migrate: ({ recording, ...doc }) => ({ ...doc, run: { ...(recording as object), tags: [], fixes: [] } }),
}

describe('cassette migrations', () => {
  it('has no registered step yet: version 1 is the first released format', () => {
    // When CASSETTE_VERSION goes up, this fails until the step from the previous version is registered.
    const froms = CASSETTE_MIGRATIONS.map((m) => m.from)
    for (let v = 1; v < CASSETTE_VERSION; v++) expect(froms).toContain(v)
    expect(CASSETTE_MIGRATIONS).toHaveLength(CASSETTE_VERSION - 1)
  })

  it('leaves a current document as it is', () => {
    const doc = structuredClone(current) as unknown as Record<string, unknown>
    expect(migrateCassette(doc)).toBe(doc)
  })

  it('migrates an older cassette through a registered step, then validates it', () => {
    const text = JSON.stringify(versionZero())
    expect(failure(() => parseCassette(text, { source: SOURCE })).code).toBe('E_CASSETTE_VERSION')
    const loaded = parseCassette(text, { source: SOURCE, migrations: [zeroToOne] })
    expect(loaded.version).toBe(1)
    expect({ ...loaded.run, tags: current.run.tags, fixes: current.run.fixes }).toEqual(current.run)
    expect(loaded.run.tags).toEqual([])
    // and the result is an ordinary current cassette
    expect(parseCassette(serializeCassette(loaded))).toEqual(loaded)
  })

  it('applies a chain of steps in order and sets each version', () => {
    const seen: number[] = []
    const step = (from: number, to: number): CassetteMigration => ({
      from,
      to,
      migrate: (doc) => {
        seen.push(doc.version as number)
        return from === 0 ? zeroToOne.migrate(doc) : doc
      },
    })
    const doc = { ...versionZero(), version: -2 }
    const loaded = parseCassette(JSON.stringify(doc), { migrations: [step(0, 1), step(-2, -1), step(-1, 0)] })
    expect(seen).toEqual([-2, -1, 0])
    expect(loaded.version).toBe(1)
  })

  it('reports a gap in the chain as E_CASSETTE_VERSION, naming the versions it can migrate', () => {
    const doc = { ...versionZero(), version: -1 }
    const err = failure(() => parseCassette(JSON.stringify(doc), { source: SOURCE, migrations: [zeroToOne] }))
    expect(err.code).toBe('E_CASSETTE_VERSION')
    expect(err.message).toContain(`cassette ${SOURCE} has format version -1`)
    expect(err.message).toContain('no migration from version -1 (it reads version 1, and migrates from 0)')
    expect(err.message).toContain('npx crashlab vitest --record')
  })

  it('validates the migrated document against the current schema', () => {
    const sloppy: CassetteMigration = {
      from: 0,
      to: 1,
      migrate: ({ recording, ...doc }) => ({ ...doc, run: recording }),
    }
    const err = failure(() =>
      parseCassette(JSON.stringify(versionZero()), { source: SOURCE, migrations: [sloppy] }),
    )
    expect(err.code).toBe('E_CASSETTE_INVALID')
    expect(err.issues.map((i) => i.path).sort()).toEqual(['$.run.fixes', '$.run.tags'])
  })

  it('turns a step that throws into E_CASSETTE_INVALID with the cause', () => {
    const cause = new Error('recording is missing')
    const broken: CassetteMigration = {
      from: 0,
      to: 1,
      migrate: () => {
        throw cause
      },
    }
    const err = failure(() =>
      parseCassette(JSON.stringify(versionZero()), { source: SOURCE, migrations: [broken] }),
    )
    expect(err.code).toBe('E_CASSETTE_INVALID')
    expect(err.message).toContain('could not be migrated from format version 0 to 1: recording is missing')
    expect(err.cause).toBe(cause)
  })

  it('can target a future version (how version 2 will be added)', () => {
    const oneToTwo: CassetteMigration = { from: 1, to: 2, migrate: (doc) => ({ ...doc, migrated: true }) }
    const doc = structuredClone(current) as unknown as Record<string, unknown>
    expect(migrateCassette(doc, { target: 2, migrations: [oneToTwo] })).toMatchObject({
      version: 2,
      migrated: true,
    })
  })

  it.each([
    ['a step that goes backwards', [{ from: 1, to: 0, migrate: (d: Record<string, unknown>) => d }]],
    ['a step past the current version', [{ from: 0, to: 2, migrate: (d: Record<string, unknown>) => d }]],
    ['two steps from one version', [zeroToOne, { ...zeroToOne }]],
  ])('refuses a registry with %s', (_, migrations) => {
    expect(() => migrateCassette(versionZero(), { migrations })).toThrow(TypeError)
  })
})
