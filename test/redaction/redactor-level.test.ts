import { describe, expect, it } from 'vitest'
import { RunSchema } from '../../src/case/schema/run.ts'
import type { LlmStep } from '../../src/case/schema/step.ts'
import { redactDocument } from '../../src/redact/index.ts'
import { MAIN_FORMATS } from './corpus/formats.ts'
import { rngFor } from './corpus/gen.ts'
import { LOCATIONS, splitAt } from './corpus/locations.ts'
import { plantCorpus } from './corpus/plant-corpus.ts'
import { RunBuilder } from './corpus/run-builder.ts'
import { GRAM, LeakIndex } from './leak-search.ts'
import { assembledTexts, assembleStream, STREAM_SHAPES } from './streams.ts'

/**
 * `redactDocument` over every format of the main corpus at every location: one run holds a fresh
 * secret of each format at each location, it is redacted once, and the redacted document (and the
 * text its streams assemble to) is searched for every sensitive part and each 12-character substring
 * of it. Then every stream shape split at every offset of the secret.
 */

const { run, items } = plantCorpus(MAIN_FORMATS, LOCATIONS)
const index = new LeakIndex(items)

function leaksOf(doc: unknown): Map<string, unknown> {
  return index.search([JSON.stringify(doc), ...assembledTexts(doc)])
}

describe('the corpus', () => {
  it('has at least 100 formats, 20 locations, and sensitive parts that the planted text holds', () => {
    expect(MAIN_FORMATS.length).toBeGreaterThanOrEqual(100)
    expect(LOCATIONS.length).toBeGreaterThanOrEqual(20)
    expect(new Set(MAIN_FORMATS.map((f) => f.id)).size).toBe(MAIN_FORMATS.length)
    for (const item of items) {
      expect(item.sensitive.length, item.key).toBeGreaterThan(0)
      for (const part of item.sensitive) {
        expect(item.text, item.key).toContain(part)
        expect(part.length, item.key).toBeGreaterThanOrEqual(GRAM)
      }
    }
  })

  it('plants a valid run', () => {
    expect(RunSchema.safeParse(run).success).toBe(true)
  })

  it('finds every planted secret before redaction (the search can fail)', () => {
    const found = leaksOf(run)
    expect(items.filter((i) => !found.has(i.key)).map((i) => i.key)).toEqual([])
  })
})

const redacted = redactDocument(run)
const leaks = leaksOf(redacted.value)

describe.each(LOCATIONS.map((l) => l.id))('redactDocument, secret at %s', (location) => {
  it.each(MAIN_FORMATS.map((f) => f.id))('%s does not leak', (format) => {
    expect(leaks.get(`${format}@${location}`) ?? []).toEqual([])
  })
})

describe.each(STREAM_SHAPES)('redactDocument, $id stream split at every offset', (shape) => {
  it.each(MAIN_FORMATS)('$id does not leak at any split', (format) => {
    const planted = format.generate(rngFor('stream', shape.id, format.id), rngFor('shape', format.id))
    const { whole, start, end } = shape.wrap(planted.text)
    const b = new RunBuilder()
    const offsets: number[] = []
    for (let at = Math.max(0, start - 1); at <= Math.min(whole.length, end + 1); at++) {
      offsets.push(at)
      b.llm({ chunks: shape.chunks(splitAt(whole, at)) })
    }
    const streamIndex = new LeakIndex([{ key: format.id, sensitive: planted.sensitive }])
    // Each split must be findable unredacted, or the search below proves nothing.
    const before = b.steps[0] as LlmStep
    expect(streamIndex.search(assembleStream(before.response!.wire.chunks!)).size).toBe(1)
    const out = redactDocument(b.build()).value
    const leaking = out.steps.flatMap((step, i) => {
      const chunks = (step as LlmStep).response!.wire.chunks!
      return streamIndex.search([JSON.stringify(chunks), ...assembleStream(chunks)]).size
        ? [offsets[i]! - start]
        : []
    })
    expect(leaking, 'offsets (relative to the secret start) whose split leaks').toEqual([])
  })
})
