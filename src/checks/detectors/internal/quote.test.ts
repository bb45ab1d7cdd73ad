import { describe, expect, it } from 'vitest'
import { headQuote, MAX_QUOTE, tailQuote } from './quote.ts'

describe('evidence quotes', () => {
  it('keeps short text whole', () => {
    expect(headQuote('{"order_id":"A17"}')).toBe('{"order_id":"A17"}')
    expect(tailQuote('')).toBe('')
  })

  it('cuts long text at a boundary, as an exact prefix or suffix', () => {
    const text = `${'word '.repeat(60)}end`
    const head = headQuote(text)
    expect(head.length).toBeLessThanOrEqual(MAX_QUOTE)
    expect(text.startsWith(head)).toBe(true)
    expect(head.endsWith(' ')).toBe(true)
    const tail = tailQuote(text, 50)
    expect(text.endsWith(tail)).toBe(true)
    expect(tail.startsWith('word')).toBe(true)
  })

  it('cuts at the limit when no boundary is near, never inside a surrogate pair', () => {
    const emoji = '😀'.repeat(150) // 300 code units, no boundary
    const head = headQuote(emoji)
    expect(head.length).toBe(200)
    expect(head).toBe('😀'.repeat(100))
    const odd = `x${emoji}`
    expect(headQuote(odd)).toBe(`x${'😀'.repeat(99)}`)
    expect(tailQuote(odd)).toBe('😀'.repeat(100))
    expect(tailQuote(`${emoji}x`)).toBe(`${'😀'.repeat(99)}x`)
  })
})
