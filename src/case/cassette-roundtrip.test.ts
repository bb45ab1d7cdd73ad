import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { loadCassette } from './cassette-load.ts'
import { parseCassette } from './cassette-parse.ts'
import { serializeCassette } from './cassette-serialize.ts'
import { writeCassette } from './cassette-write.ts'
import { json, normalizeNegativeZero, run } from './internal/test-arbitraries.ts'
import { cassetteOf } from './internal/test-runs.ts'
import { RunSchema } from './schema/run.ts'

const dir = mkdtempSync(join(tmpdir(), 'crashlab-roundtrip-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A deep copy whose objects list their keys in the opposite order (and `__proto__` stays an own key). */
function reverseKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map(reverseKeys) as T
  if (typeof value !== 'object' || value === null) return value
  const out: Record<string, unknown> = {}
  for (const k of Object.keys(value).reverse()) {
    const v = reverseKeys((value as Record<string, unknown>)[k])
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true })
  }
  return out as T
}

describe('cassette round trip (property-based)', () => {
  it('the arbitrary produces valid runs', () => {
    fc.assert(
      fc.property(run, (r) => {
        const result = RunSchema.safeParse(r)
        if (!result.success) throw new Error(JSON.stringify(result.error.issues.slice(0, 3)))
      }),
      { numRuns: 300 },
    )
  })

  it('any valid run survives writeCassette → loadCassette unchanged', () => {
    let n = 0
    fc.assert(
      fc.property(run, (r) => {
        const path = join(dir, `sub-${n++ % 7}`, 'c.cassette.json')
        const written = writeCassette(path, r)
        // The arbitrary never looks like a secret, so nothing may have been redacted: exact equality.
        expect(written.run.redaction).toEqual(r.redaction)
        const loaded = loadCassette(path)
        expect(loaded.run).toEqual(normalizeNegativeZero(r))
        expect(loaded).toEqual(written)
        expect(readFileSync(path, 'utf8')).toBe(serializeCassette(written))
      }),
      { numRuns: 150 },
    )
  })

  it('canonical bytes are stable: serialize(parse(serialize(x))) === serialize(x)', () => {
    fc.assert(
      fc.property(run, (r) => {
        const text = serializeCassette(cassetteOf(r))
        expect(serializeCassette(parseCassette(text))).toBe(text)
      }),
      { numRuns: 300 },
    )
  })

  it('the order of keys in the input does not change the bytes', () => {
    fc.assert(
      fc.property(run, (r) => {
        expect(serializeCassette(cassetteOf(reverseKeys(r)))).toBe(serializeCassette(cassetteOf(r)))
      }),
      { numRuns: 300 },
    )
  })

  it('free JSON keeps awkward keys (`__proto__`, empty, astral) and values exactly', () => {
    fc.assert(
      fc.property(json, (value) => {
        const text = serializeCassette(
          cassetteOf({ ...fc.sample(run, { numRuns: 1, seed: 1 })[0]!, input: value }),
        )
        const loaded = parseCassette(text).run.input
        expect(loaded).toEqual(normalizeNegativeZero(value))
        expect(Object.getPrototypeOf(loaded ?? {})).not.toBe(null)
      }),
      { numRuns: 500 },
    )
  })
})
