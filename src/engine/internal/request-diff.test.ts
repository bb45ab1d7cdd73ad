import { describe, expect, it } from 'vitest'
import { diffRequests, formatDifference, showChange } from './request-diff.ts'

/** A long text whose every window is recognisable: sentence N says its own number. */
function prose(sentences: number): string {
  return Array.from({ length: sentences }, (_, i) => `Sentence ${i} of the policy.`).join(' ')
}

describe('formatDifference', () => {
  it('shows short values whole', () => {
    const [d] = diffRequests({ params: { temperature: 0 } }, { params: { temperature: 0.5 } })
    expect(formatDifference(d!)).toBe('param temperature: 0 → 0.5')
  })

  it('a long prompt that changes only at its end shows the end, with the offset', () => {
    const base = prose(100)
    const recorded = `${base} Answer in English.`
    const actual = `${base} Answer in French.`
    const offset = base.length + ' Answer in '.length
    const line = showChange(recorded, actual)
    expect(line).toBe(
      `at character ${offset} of ${recorded.length} → ${actual.length}: ` +
        '"…f the policy. Answer in English." → "…f the policy. Answer in French."',
    )
  })

  it('a change at the start shows the start, without a leading ellipsis', () => {
    const tail = prose(60)
    const line = showChange(`Refund ${tail}`, `Cancel ${tail}`)
    expect(line).toBe(
      `at character 0 of ${tail.length + 7} → ${tail.length + 7}: ` +
        '"Refund Sentence 0 of the policy. Sentenc…" → "Cancel Sentence 0 of the policy. Sentenc…"',
    )
  })

  it('a JSON document in a string (a tool result) that differs deep inside shows where', () => {
    const order = (status: string) =>
      JSON.stringify({
        order: { id: 'A17', lines: Array.from({ length: 30 }, (_, i) => ({ sku: `SKU-${i}`, qty: 1 })) },
        refund: { history: [{ at: '2026-11-01', status }] },
      })
    const recorded = order('refunded')
    const actual = order('pending')
    const line = showChange(recorded, actual)
    const offset = recorded.indexOf('refunded') // "r" against "p"
    expect(recorded.slice(0, offset)).toBe(actual.slice(0, offset))
    expect(line).toContain(`at character ${offset} of ${recorded.length} → ${actual.length}: `)
    expect(line).toContain('\\"status\\":\\"refunded\\"}]}}"')
    expect(line).toContain('\\"status\\":\\"pending\\"}]}}"')
  })

  it('JSON values of different shapes are windowed as JSON text', () => {
    const lines = Array.from({ length: 20 }, (_, i) => ({ sku: `SKU-${i}` }))
    const line = showChange({ lines, note: 'x' }, { lines, note: ['x'] })
    const offset = JSON.stringify({ lines, note: '' }).length - 3
    expect(line).toBe(
      `at JSON character ${offset} of ${offset + 4} → ${offset + 6}: ` +
        '…"sku":"SKU-19"}],"note":"x"} → …"sku":"SKU-19"}],"note":["x"]}',
    )
  })

  it('stays bounded for huge values, escapes control characters and never splits a surrogate pair', () => {
    const huge = 'a'.repeat(100_000)
    expect(showChange(`${huge}1${huge}`, `${huge}2${huge}`).length).toBeLessThan(200)
    expect(showChange(`${'x'.repeat(100)}\n\nend`, `${'x'.repeat(100)}\n\nEND`)).toBe(
      'at character 102 of 105 → 105: "…xxxxxxxxxxxxxxxxxxxxxx\\n\\nend" → "…xxxxxxxxxxxxxxxxxxxxxx\\n\\nEND"',
    )
    const line = showChange(`${'y'.repeat(100)}🙂a`, `${'y'.repeat(100)}🙃a`)
    expect(line).toMatch(/^at character 100 of 103 → 103: "…y+🙂a" → "…y+🙃a"$/)
    expect(line).not.toMatch(/\\ud[89ab]/)
  })

  it('one string a prefix of the other: the offset is where the shorter one ends', () => {
    const base = prose(10)
    expect(showChange(base, `${base} And one more.`)).toBe(
      `at character ${base.length} of ${base.length} → ${base.length + 14}: ` +
        '"…entence 9 of the policy." → "…entence 9 of the policy. And one more."',
    )
  })

  it('added and removed values stay cut at a bounded length', () => {
    const [added] = diffRequests(
      { messages: [] },
      { messages: [{ role: 'user', parts: [{ type: 'text', text: prose(50) }] }] },
    )
    expect(formatDifference(added!)).toMatch(/^message 0 \(user\): added \{.{60,80}…$/)
  })
})
