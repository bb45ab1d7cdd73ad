import { describe, expect, it } from 'vitest'
import { redactDocument } from '../../src/redact/index.ts'
import { MAIN_LOOK_ALIKES } from './corpus/look-alikes.ts'
import { contentChunks } from './corpus/run-builder.ts'

/**
 * Look-alikes are never redacted: not as a plain string, not inside JSON held as text (tool-call
 * arguments), not inside a stream.
 */

function placements(text: string) {
  return {
    note: `see ${text} here`,
    args: JSON.stringify({ query: text, limit: 5 }),
    response: { wire: { chunks: contentChunks([`answer: ${text.slice(0, 5)}`, `${text.slice(5)} end`]) } },
  }
}

describe('look-alikes', () => {
  it('there are at least 200', () => {
    expect(MAIN_LOOK_ALIKES.length).toBeGreaterThanOrEqual(200)
  })

  it.each(MAIN_LOOK_ALIKES)('$id is not redacted', ({ text }) => {
    const doc = placements(text)
    const r = redactDocument(doc)
    expect(r.records).toEqual([])
    expect(r.value).toEqual(doc)
  })
})
