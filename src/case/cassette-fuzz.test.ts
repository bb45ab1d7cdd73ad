import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { CrashlabError } from '../errors.ts'
import { parseCassette } from './cassette-parse.ts'
import { serializeCassette } from './cassette-serialize.ts'
import { run as runArbitrary } from './internal/test-arbitraries.ts'
import { buildRealisticRun, cassetteOf } from './internal/test-runs.ts'

/**
 * Fuzzing the loader: whatever the bytes, `parseCassette` either returns a cassette or throws a
 * CrashlabError with an `E_CASSETTE_*` code; never a TypeError from poking at a half-valid document, a
 * stack overflow, or a hang. Over 6,000 cases, mostly mutations of valid cassettes, so that the inputs
 * get past the early checks and reach the schema and the migrations.
 */

const realistic = Buffer.from(
  serializeCassette(cassetteOf(buildRealisticRun({ steps: 4, seed: 9, words: 8 }))),
)
const awkward = Buffer.from(
  serializeCassette(cassetteOf(fc.sample(runArbitrary, { numRuns: 1, seed: 42 })[0]!)),
)
const seeds = [realistic, awkward]
// Just above the seeds: insertions and duplications sometimes cross it, so the size check is fuzzed too.
const maxBytes = Math.max(realistic.length, awkward.length) + 256

const outcomes = new Map<string, number>()
let cases = 0

/** The property: loads, or fails the documented way. Returns the outcome for the tallies. */
function loadsOrFailsCleanly(input: Uint8Array | string, limit = maxBytes, roundTrip = true): string {
  cases++
  let outcome: string
  try {
    const cassette = parseCassette(input, { maxBytes: limit })
    // what loads must be a cassette that serializes and loads again identically
    if (roundTrip) expect(parseCassette(serializeCassette(cassette))).toEqual(cassette)
    outcome = 'ok'
  } catch (err) {
    if (!(err instanceof CrashlabError) || !err.code.startsWith('E_CASSETTE_')) {
      throw new Error(`not a cassette error: ${(err as Error)?.stack ?? err}`)
    }
    expect(err.message.startsWith('[crashlab] ')).toBe(true)
    outcome = err.code
  }
  outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1)
  return outcome
}

const seedBytes = fc.constantFrom(...seeds)
const offsetIn = (b: Uint8Array) => fc.nat({ max: b.length })

const bitFlips = seedBytes.chain((b) =>
  fc
    .array(fc.tuple(fc.nat({ max: b.length - 1 }), fc.nat({ max: 7 })), { minLength: 1, maxLength: 8 })
    .map((flips) => {
      const out = Uint8Array.from(b)
      for (const [at, bit] of flips) out[at]! ^= 1 << bit
      return out
    }),
)
const truncations = seedBytes.chain((b) => offsetIn(b).map((n) => b.subarray(0, n)))
const insertions = seedBytes.chain((b) =>
  fc
    .tuple(offsetIn(b), fc.uint8Array({ minLength: 1, maxLength: 64 }))
    .map(([at, junk]) => Buffer.concat([b.subarray(0, at), junk, b.subarray(at)])),
)
const textInsertions = seedBytes.chain((b) =>
  fc
    .tuple(
      offsetIn(b),
      fc.constantFrom(
        '{',
        '}',
        '[',
        ']',
        ',',
        ':',
        '"',
        '\\',
        'null',
        '1e999',
        '-',
        '\u0000',
        '😀',
        '\ud800',
      ),
    )
    .map(([at, s]) => Buffer.concat([b.subarray(0, at), Buffer.from(s), b.subarray(at)])),
)
const duplications = seedBytes.chain((b) =>
  fc.tuple(offsetIn(b), offsetIn(b), offsetIn(b)).map(([x, y, at]) => {
    const [from, to] = x <= y ? [x, y] : [y, x]
    return Buffer.concat([b.subarray(0, at), b.subarray(from, to), b.subarray(at)])
  }),
)
const deletions = seedBytes.chain((b) =>
  fc
    .tuple(offsetIn(b), fc.nat({ max: 200 }))
    .map(([at, n]) => Buffer.concat([b.subarray(0, at), b.subarray(at + n)])),
)

/** Every place in a parsed document, as a path, so that a value can be swapped in anywhere. */
function paths(value: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []) {
  out.push(prefix)
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) paths(v, [...prefix, i], out)
  } else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) paths(v, [...prefix, k], out)
  }
  return out
}
const docs = seeds.map((b) => JSON.parse(b.toString('utf8')))
const docPaths = docs.map((d) => paths(d).filter((p) => p.length > 0))

const swappedValues = fc
  .tuple(fc.nat({ max: docs.length - 1 }), fc.nat(), fc.jsonValue({ maxDepth: 3 }), fc.boolean())
  .map(([which, pick, value, remove]) => {
    const doc = structuredClone(docs[which])
    const all = docPaths[which]!
    const path = all[pick % all.length]!
    let parent = doc
    for (const key of path.slice(0, -1)) parent = parent[key]
    const last = path[path.length - 1]!
    if (remove && !Array.isArray(parent)) delete parent[last]
    else parent[last] = value
    return JSON.stringify(doc)
  })

const envelope = (run: string) =>
  `{"format":"crashlab.cassette","version":1,"creator":{"name":"crashlab","version":"0.1.0"},"run":${run}}`

describe('cassette loader fuzz', () => {
  afterAll(() => {
    expect(cases).toBeGreaterThanOrEqual(5000)
  })

  const params = { numRuns: 700, endOnFailure: true }

  it('random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (b) => void loadsOrFailsCleanly(b)),
      params,
    )
  })

  it('random JSON values, alone and as the run', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => void loadsOrFailsCleanly(JSON.stringify(v))),
      params,
    )
    fc.assert(
      fc.property(fc.jsonValue(), (v) => void loadsOrFailsCleanly(envelope(JSON.stringify(v)))),
      params,
    )
  })

  it('bit flips, truncations and insertions in valid cassettes', () => {
    for (const mutated of [bitFlips, truncations, insertions, textInsertions]) {
      fc.assert(
        fc.property(mutated, (b) => void loadsOrFailsCleanly(b)),
        params,
      )
    }
  })

  it('duplicated and deleted ranges', () => {
    for (const mutated of [duplications, deletions]) {
      fc.assert(
        fc.property(mutated, (b) => void loadsOrFailsCleanly(b)),
        params,
      )
    }
  })

  it('a random JSON value swapped in (or a key removed) anywhere in a valid cassette', () => {
    fc.assert(
      fc.property(swappedValues, (text) => void loadsOrFailsCleanly(text)),
      { ...params, numRuns: 1000 },
    )
  })

  it('any value as the format version', () => {
    const version = fc.oneof(fc.integer(), fc.integer({ min: -3, max: 3 }), fc.jsonValue({ maxDepth: 1 }))
    fc.assert(
      fc.property(seedBytes, version, (b, v) => {
        const text = b
          .toString('utf8')
          .replace(/\n {2}"version": 1\n/, `\n  "version": ${JSON.stringify(v)}\n`)
        // a large version value may push the text past the tight fuzzing limit: the version is under test here
        const outcome = loadsOrFailsCleanly(text, Buffer.byteLength(text))
        if (v === 1) expect(outcome).toBe('ok')
        else if (Number.isSafeInteger(v)) expect(outcome).toBe('E_CASSETTE_VERSION')
        else expect(outcome).toBe('E_CASSETTE_MALFORMED')
      }),
      { numRuns: 300 },
    )
  })

  it('deep nesting, as the whole document, as the run and inside free JSON', () => {
    // Over the 1,000-level bound: refused before the schema, wherever the nesting is.
    const depths = fc.integer({ min: 1001, max: 200_000 })
    fc.assert(
      fc.property(depths, fc.constantFrom('[', '{"a":'), (depth, open) => {
        const close = open === '[' ? ']' : '}'
        const nested = `${open.repeat(depth)}1${close.repeat(depth)}`
        const roomy = nested.length + realistic.length
        expect(loadsOrFailsCleanly(nested, roomy)).toBe('E_CASSETTE_MALFORMED')
        expect(loadsOrFailsCleanly(envelope(nested), roomy)).toBe('E_CASSETTE_MALFORMED')
        const text = realistic.toString('utf8').replace(/"input": [^\n]*\n/, `"input": ${nested},\n`)
        expect(text.length).toBeGreaterThan(nested.length)
        expect(loadsOrFailsCleanly(text, roomy, false)).toBe('E_CASSETTE_MALFORMED')
      }),
      { numRuns: 30 },
    )
  })

  it('deep free JSON under the bound still loads: the schema does not walk it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 990 }), fc.constantFrom('[', '{"a":'), (depth, open) => {
        const close = open === '[' ? ']' : '}'
        const nested = `${open.repeat(depth)}1${close.repeat(depth)}`
        const text = realistic.toString('utf8').replace(/"input": [^\n]*\n/, `"input": ${nested},\n`)
        expect(loadsOrFailsCleanly(text, Buffer.byteLength(text), false)).toBe('ok')
      }),
      { numRuns: 20 },
    )
  })

  it('reaches every stage of the loader', () => {
    // Without this the property above could pass by never getting past the first check.
    for (const code of [
      'ok',
      'E_CASSETTE_MALFORMED',
      'E_CASSETTE_INVALID',
      'E_CASSETTE_TOO_LARGE',
      'E_CASSETTE_VERSION',
    ]) {
      expect(outcomes.get(code) ?? 0, code).toBeGreaterThan(0)
    }
  })
})
