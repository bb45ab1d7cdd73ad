import { describe, expect, it } from 'vitest'
import { DigestTable } from './step-repetition.ts'

describe('DigestTable', () => {
  it('numbers digests in the order first seen and finds them again past several doublings', () => {
    const table = new DigestTable()
    const lanes = (n: number) => [Math.imul(n, 0x9e3779b1), Math.imul(n ^ 0x5bd1e995, 0x85ebca6b)] as const
    for (let n = 0; n < 5000; n++) {
      expect(table.entry(...lanes(n), undefined)).toBe(n)
      expect(table.isNew).toBe(true)
    }
    for (let n = 4999; n >= 0; n--) {
      expect(table.entry(...lanes(n), undefined)).toBe(n)
      expect(table.isNew).toBe(false)
    }
    expect(table.size).toBe(5000)
  })

  it('keeps two keys with the same digest apart when the collision check tells them apart', () => {
    const table = new DigestTable()
    const keys: string[] = []
    let looking = ''
    const check = { same: (entry: number) => keys[entry] === looking }
    const entry = (key: string) => {
      looking = key
      const e = table.entry(7, -7, check) // every key collides
      if (table.isNew) keys[e] = key
      return e
    }
    expect(entry('a')).toBe(0)
    expect(entry('b')).toBe(1)
    expect(entry('a')).toBe(0)
    expect(table.isNew).toBe(false)
    expect(entry('b')).toBe(1)
    expect(entry('c')).toBe(2)
  })
})
