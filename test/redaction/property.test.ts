import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { canonicalStringify } from '../../src/case/canonical-json.ts'
import type { LlmStep } from '../../src/case/schema/step.ts'
import { matchable } from '../../src/engine/matchable.ts'
import { requestHash } from '../../src/providers/request-hash.ts'
import { redactDocument } from '../../src/redact/index.ts'
import { MAIN_FORMATS } from './corpus/formats.ts'
import { createRng } from './corpus/gen.ts'
import { LOCATIONS } from './corpus/locations.ts'
import { RunBuilder } from './corpus/run-builder.ts'
import { LeakIndex } from './leak-search.ts'
import { assembledTexts } from './streams.ts'

/**
 * Properties over random secret × location × surrounding text: nothing sensitive survives, redacting
 * twice changes nothing, and a rotated secret of the same format gives the same bytes and the same
 * request hashes.
 */

const SEPARATORS = [
  ' ',
  '\n',
  '\t',
  '"',
  "'",
  '\\',
  '(',
  ')',
  ',',
  ';',
  '<',
  '>',
  '`',
  '[',
  ']',
  '|',
  '\\n',
  '\\"',
  '\\\\',
]

const arbCase = fc.record({
  formatId: fc.constantFrom(...MAIN_FORMATS.map((f) => f.id)),
  locationId: fc.constantFrom(...LOCATIONS.map((l) => l.id)),
  seed: fc.integer(),
  rotated: fc.integer(),
  shape: fc.integer(),
  offset: fc.integer(),
  before: fc.string({ maxLength: 16 }),
  after: fc.string({ maxLength: 16 }),
  sep1: fc.constantFrom(...SEPARATORS),
  sep2: fc.constantFrom(...SEPARATORS),
})

type Case = typeof arbCase extends fc.Arbitrary<infer T> ? T : never

function build(c: Case, seed: number) {
  const format = MAIN_FORMATS.find((f) => f.id === c.formatId)!
  const location = LOCATIONS.find((l) => l.id === c.locationId)!
  const planted = format.generate(createRng(seed), createRng(c.shape))
  const b = new RunBuilder()
  location.plant(b, `${c.before}${c.sep1}${planted.text}${c.sep2}${c.after}`, 'p0', createRng(c.offset))
  return { run: b.build(), planted }
}

function hashes(steps: readonly unknown[]): string[] {
  return (steps as LlmStep[])
    .filter((s) => s.type === 'llm')
    .map((s) =>
      requestHash({
        method: 'POST',
        url: s.request.wire.url,
        headers: {},
        normalized: matchable(s.request.normalized!),
      }),
    )
}

describe('redaction properties (fast-check)', () => {
  it('no sensitive part of any secret survives, wherever it sits and whatever surrounds it', () => {
    fc.assert(
      fc.property(arbCase, (c) => {
        const { run, planted } = build(c, c.seed)
        const out = redactDocument(run).value
        const found = new LeakIndex([{ key: c.formatId, sensitive: planted.sensitive }]).search([
          JSON.stringify(out),
          ...assembledTexts(out),
        ])
        expect(found.get(c.formatId) ?? [], `${c.formatId} at ${c.locationId}`).toEqual([])
      }),
      { numRuns: 300 },
    )
  })

  it('is idempotent', () => {
    fc.assert(
      fc.property(arbCase, (c) => {
        const once = redactDocument(build(c, c.seed).run).value
        expect(redactDocument(once).value).toEqual(once)
      }),
      { numRuns: 200 },
    )
  })

  it('is stable under rotation: a rotated secret gives the same bytes and request hashes', () => {
    fc.assert(
      fc.property(arbCase, (c) => {
        const a = redactDocument(build(c, c.seed).run).value
        const b = redactDocument(build(c, c.rotated).run).value
        expect(canonicalStringify(b), `${c.formatId} at ${c.locationId}`).toBe(canonicalStringify(a))
        const ha = hashes(build(c, c.seed).run.steps)
        const hb = hashes(build(c, c.rotated).run.steps)
        expect(hb).toEqual(ha)
      }),
      { numRuns: 200 },
    )
  })
})
