import { existsSync, readFileSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { CrashlabError } from '../../errors.ts'
import { fromAgentCase, parseAgentCase, serializeAgentCase, toAgentCase } from './index.ts'
import { buildSampleRun } from './internal/test-sample-run.ts'

/**
 * The loader must never fail any other way than with a CrashlabError carrying an E_AGENTCASE_* code: no
 * TypeError from a half-checked value, no RangeError from deep nesting, no hang. What it accepts must
 * serialize, re-parse to the same bytes, and import into a run (or be refused with a code, too).
 * 5,400 inputs in all: random bytes, and valid cases with bits flipped, cut short, bytes inserted,
 * chunks duplicated, or a field replaced by random JSON.
 */

const enc = new TextEncoder()
const shared = new URL('../../../../shared/agentcase/fixtures/valid_minimal.agentcase', import.meta.url)
const seeds: Uint8Array[] = [
  readFileSync(new URL('../../../test/fixtures/agentcase/valid-nonascii-nested.agentcase', import.meta.url)),
  enc.encode(serializeAgentCase(toAgentCase(buildSampleRun()))),
  ...(existsSync(shared) ? [readFileSync(shared)] : []),
]
const seed = fc.constantFrom(...seeds)
const seedValue = seed.map((b) => JSON.parse(Buffer.from(b).toString('utf8')) as unknown)

let accepted = 0

/** The property: accepted and well-behaved, or refused with an AgentCase code. */
function check(input: Uint8Array | string): void {
  let text: string
  try {
    const c = parseAgentCase(input, { source: 'fuzz.agentcase' })
    text = serializeAgentCase(c)
    expect(serializeAgentCase(parseAgentCase(text))).toBe(text)
    accepted++
    try {
      fromAgentCase(c)
    } catch (err) {
      expectAgentCaseError(err)
    }
  } catch (err) {
    expectAgentCaseError(err)
  }
}

function expectAgentCaseError(err: unknown): void {
  if (!(err instanceof CrashlabError) || !err.code.startsWith('E_AGENTCASE_')) throw err
}

const splice = (b: Uint8Array, at: number, del: number, insert: Uint8Array = new Uint8Array()) => {
  const i = at % (b.length + 1)
  return Buffer.concat([b.subarray(0, i), insert, b.subarray(Math.min(b.length, i + del))])
}

/** Every path into a JSON value, so that a mutation can target any field of a valid case. */
function paths(v: unknown, prefix: Array<string | number> = [], out: Array<Array<string | number>> = []) {
  out.push(prefix)
  if (Array.isArray(v)) for (const [i, x] of v.entries()) paths(x, [...prefix, i], out)
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) paths(x, [...prefix, k], out)
  return out
}

function setAt(root: unknown, path: Array<string | number>, value: unknown): unknown {
  if (path.length === 0) return value
  const copy = structuredClone(root) as Record<string | number, unknown>
  let v = copy
  for (const k of path.slice(0, -1)) v = v[k] as Record<string | number, unknown>
  v[path.at(-1)!] = value
  return copy
}

describe('AgentCase loader fuzz', () => {
  it('random bytes', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 600 }), check), { numRuns: 1000 })
  })

  it('random JSON documents', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => check(JSON.stringify(v))),
      { numRuns: 600 },
    )
  })

  it('valid cases with bits flipped', () => {
    const flips = fc.array(fc.tuple(fc.nat(), fc.nat({ max: 7 })), { minLength: 1, maxLength: 6 })
    fc.assert(
      fc.property(seed, flips, (b, fs) => {
        const m = Uint8Array.from(b)
        for (const [pos, bit] of fs) m[pos % m.length]! ^= 1 << bit
        check(m)
      }),
      { numRuns: 1000 },
    )
  })

  it('valid cases cut short', () => {
    fc.assert(
      fc.property(seed, fc.nat(), (b, n) => check(b.subarray(0, n % b.length))),
      { numRuns: 600 },
    )
  })

  it('valid cases with bytes or JSON tokens inserted', () => {
    const token = fc.oneof(
      fc.uint8Array({ minLength: 1, maxLength: 8 }),
      fc
        .constantFrom('{', '}', '[', ']', ',', ':', '"', '\\', 'null', '-0', '1e400', '\uFEFF', '"x":1,')
        .map((t) => enc.encode(t)),
    )
    fc.assert(
      fc.property(seed, fc.nat(), token, (b, at, t) => check(splice(b, at, 0, t))),
      { numRuns: 800 },
    )
  })

  it('valid cases with a chunk duplicated or deleted', () => {
    fc.assert(
      fc.property(seed, fc.nat(), fc.nat({ max: 200 }), fc.nat(), fc.boolean(), (b, from, len, to, dup) => {
        const start = from % b.length
        const chunk = b.subarray(start, start + len)
        check(dup ? splice(b, to, 0, chunk) : splice(b, start, len))
      }),
      { numRuns: 600 },
    )
  })

  it('valid cases with one field replaced by random JSON', () => {
    fc.assert(
      fc.property(seedValue, fc.nat(), fc.jsonValue({ maxDepth: 3 }), (v, pick, value) => {
        const all = paths(v)
        check(JSON.stringify(setAt(v, all[pick % all.length]!, value)))
      }),
      { numRuns: 800 },
    )
  })

  // A hang would trip Vitest's test timeout; speed itself is not asserted here.
  it('accepted some inputs', () => {
    // The mutations must not all be trivially rejected: a bit flip inside a string stays valid.
    expect(accepted).toBeGreaterThan(50)
  })
})
