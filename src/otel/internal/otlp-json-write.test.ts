import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readOtlp } from '../read-otlp.ts'
import { toOtlpJson } from './otlp-json-write.ts'

const FIXTURES = join(import.meta.dirname, '..', 'fixtures')
const otlpFixtures = readdirSync(FIXTURES).filter((f) => /^(genai|ai-sdk|openinference).*\.jsonl?$/.test(f))

describe('toOtlpJson', () => {
  it.each(otlpFixtures)(
    'writes the spans of %s as one line that readOtlp reads back into the same spans',
    (file) => {
      const spans = readOtlp(readFileSync(join(FIXTURES, file), 'utf8'), file)
      expect(spans.length).toBeGreaterThan(0)
      const line = toOtlpJson(spans)
      expect(line).not.toContain('\n')
      // Grouped by resource and scope: the order of the spans may change, not the spans.
      const byId = (list: typeof spans) => [...list].sort((a, b) => a.spanId.localeCompare(b.spanId))
      expect(byId(readOtlp(line, 'written'))).toEqual(byId(spans))
    },
  )

  it('encodes each kind of value as its AnyValue: ints as strings, doubles, arrays, maps, unset', () => {
    const [span] = readOtlp(readFileSync(join(FIXTURES, 'genai-agent.json'), 'utf8'), 'genai-agent.json')
    const line = toOtlpJson([
      { ...span!, attributes: { n: 3, x: 0.5, ok: true, list: ['a', 1], map: { k: 'v' }, none: null } },
    ])
    const written = JSON.parse(line).resourceSpans[0].scopeSpans[0].spans[0]
    expect(written.attributes).toEqual([
      { key: 'n', value: { intValue: '3' } },
      { key: 'x', value: { doubleValue: 0.5 } },
      { key: 'ok', value: { boolValue: true } },
      { key: 'list', value: { arrayValue: { values: [{ stringValue: 'a' }, { intValue: '1' }] } } },
      { key: 'map', value: { kvlistValue: { values: [{ key: 'k', value: { stringValue: 'v' } }] } } },
      { key: 'none', value: {} },
    ])
    expect(written.startTimeUnixNano).toBe(String(span!.startTimeUnixNano))
  })
})
