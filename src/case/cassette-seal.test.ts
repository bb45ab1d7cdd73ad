import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { loadCassette } from './cassette-load.ts'
import { parseCassette } from './cassette-parse.ts'
import { holdsSeal, sealOf } from './cassette-seal.ts'
import { serializeCassette } from './cassette-serialize.ts'
import { writeCassette } from './cassette-write.ts'
import { buildRealisticRun, cassetteOf } from './internal/test-runs.ts'
import type { Cassette } from './schema/cassette.ts'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'crashlab-seal-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const run = buildRealisticRun({ steps: 12, seed: 7 })

/** Seals a cassette object as the writer does, whatever it holds (the writer validates first). */
function sealed(cassette: Cassette): string {
  const { seal: _drop, ...rest } = cassette
  return serializeCassette({ ...rest, seal: sealOf(serializeCassette(rest)) } as Cassette)
}

describe('the cassette seal', () => {
  it('is written by writeCassette, and a load of the same bytes gives what was written', () => {
    const path = join(dir, 'a.cassette.json')
    const written = writeCassette(path, run)
    const text = readFileSync(path, 'utf8')
    expect(written.seal).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(text).toContain(`\n  "seal": "${written.seal}",\n  "version": 1\n}\n`)
    expect(holdsSeal(text)).toBe(true)
    expect(loadCassette(path)).toEqual(written)
  })

  it('lets a load skip the schema only for bytes this crashlab sealed: a sealed invalid run loads as is', () => {
    // Not something writeCassette would write (it validates first): it shows the schema is not run.
    const bad = cassetteOf({ ...run, outcome: 'maybe' } as unknown as typeof run)
    expect(parseCassette(sealed(bad)).run.outcome).toBe('maybe')
    // The same bytes unsealed are validated.
    expect(() => parseCassette(serializeCassette(bad))).toThrow(/E_CASSETTE_INVALID|does not match/)
  })

  it('is checked against the whole text: any edit, even of free JSON, means a full validation', () => {
    const bad = cassetteOf({ ...run, outcome: 'maybe' } as unknown as typeof run)
    const text = sealed(bad)
    const edited = text.replace('"input": ', '"input":  ')
    expect(edited).not.toBe(text)
    expect(holdsSeal(edited)).toBe(false)
    expect(() => parseCassette(edited)).toThrow(/does not match the cassette format/)
    // A seal that is not the hash of the rest (changed by hand) is no seal either.
    const forged = text.replace(/"seal": "sha256:[0-9a-f]{8}/, '"seal": "sha256:00000000')
    expect(() => parseCassette(forged)).toThrow(/does not match the cassette format/)
  })

  it('is trusted only from this crashlab version: a cassette another version sealed is validated', () => {
    const bad = cassetteOf({ ...run, outcome: 'maybe' } as unknown as typeof run)
    const other = sealed({ ...bad, creator: { name: 'crashlab', version: '0.0.1-other' } })
    expect(holdsSeal(other)).toBe(true)
    expect(() => parseCassette(other)).toThrow(/does not match the cassette format/)
  })

  it('loads a sealed cassette without loading zod (in a fresh process)', () => {
    const path = join(dir, 'b.cassette.json')
    writeCassette(path, run)
    const unsealed = join(dir, 'c.cassette.json')
    writeFileSync(unsealed, serializeCassette(cassetteOf(run)))
    const script = (file: string) =>
      `import { loadCassette } from ${JSON.stringify(join(import.meta.dirname, 'cassette-load.ts'))}
       import { zodLoaded } from ${JSON.stringify(join(import.meta.dirname, '..', 'lazy-zod.ts'))}
       const { run } = loadCassette(${JSON.stringify(file)})
       console.log(JSON.stringify({ steps: run.steps.length, zod: zodLoaded() }))`
    const probe = (file: string) =>
      JSON.parse(
        execFileSync(process.execPath, ['--input-type=module', '-e', script(file)], { encoding: 'utf8' }),
      ) as { steps: number; zod: boolean }
    expect(probe(path)).toEqual({ steps: run.steps.length, zod: false })
    expect(probe(unsealed)).toEqual({ steps: run.steps.length, zod: true })
  })
})
