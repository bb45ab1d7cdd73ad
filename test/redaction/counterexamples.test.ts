import { describe, expect, it } from 'vitest'
import { redactDocument } from '../../src/redact/index.ts'
import { MAIN_FORMATS } from './corpus/formats.ts'
import { createRng } from './corpus/gen.ts'
import { LOCATIONS } from './corpus/locations.ts'
import { RunBuilder } from './corpus/run-builder.ts'
import { LeakIndex } from './leak-search.ts'
import { assembledTexts } from './streams.ts'

/**
 * Cases the fast-check properties (property.test.ts) once failed on, fixed here so that they run on
 * every commit whatever seed the properties draw, with the shapes next to them. Each plants one secret
 * of a main format, written as `<before><secret><after>`, at one location, and searches the redacted
 * run for every sensitive part of it.
 */

interface Counterexample {
  formatId: string
  locationId: string
  before: string
  after: string
}

function leaked({ formatId, locationId, before, after }: Counterexample): unknown[] {
  const format = MAIN_FORMATS.find((f) => f.id === formatId)!
  const location = LOCATIONS.find((l) => l.id === locationId)!
  const planted = format.generate(createRng(0), createRng(0))
  const b = new RunBuilder()
  location.plant(b, `${before}${planted.text}${after}`, 'p0', createRng(0))
  const out = redactDocument(b.build()).value
  const found = new LeakIndex([{ key: formatId, sensitive: planted.sensitive }])
  return found.search([JSON.stringify(out), ...assembledTexts(out)]).get(formatId) ?? []
}

/**
 * A token followed by code or punctuation with no space between: `)?.*` (seed 1281092887 of the leak
 * property: the `?.` after the value was read as optional chaining, as in `opts?.apiKey`, and the whole
 * value let go), and the closing brackets and operators around it.
 */
const TRAILING = [')?.*', ')', '?', '*', ']', '}', ')?', ']?.x', '}?.x', '|a?.b', '(x?.y', ')?.trim()']

describe('a secret right before code or punctuation, with no space between', () => {
  it('aws-session-token in a request header, followed by `)?.*` (fast-check seed 1281092887)', () => {
    const c = { formatId: 'aws-session-token', locationId: 'request-header', before: ' ', after: ')?.*' }
    expect(leaked(c)).toEqual([])
  })

  it.each(['request-header', 'json-body', 'user-message'])(
    'leaves nothing of any main format at %s',
    (locationId) => {
      const leaks = MAIN_FORMATS.flatMap((f) =>
        TRAILING.filter((after) => leaked({ formatId: f.id, locationId, before: ' ', after }).length > 0).map(
          (after) => `${f.id} + ${after}`,
        ),
      )
      expect(leaks, 'formats and trailing texts after which part of the secret survives').toEqual([])
    },
  )
})
