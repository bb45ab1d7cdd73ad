import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { diffLines, hunks } from './line-diff.ts'

const lines = fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 30 })

describe('diffLines', () => {
  it('gives back both sides, in order, and keeps a longest common part', () => {
    fc.assert(
      fc.property(lines, lines, (a, b) => {
        const diff = diffLines(a, b)
        expect(diff.filter((d) => d.op !== '+').map((d) => d.text)).toEqual(a)
        expect(diff.filter((d) => d.op !== '-').map((d) => d.text)).toEqual(b)
        for (const d of diff) {
          if (d.a !== undefined) expect(a[d.a]).toBe(d.text)
          if (d.b !== undefined) expect(b[d.b]).toBe(d.text)
        }
      }),
    )
    expect(diffLines(['x', 'a', 'b', 'y'], ['x', 'b', 'a', 'y']).filter((d) => d.op === ' ')).toHaveLength(3)
  })

  it('removes before it adds, and falls back to remove-then-add past its size limit', () => {
    expect(diffLines(['a'], ['b']).map((d) => d.op + d.text)).toEqual(['-a', '+b'])
    const big = Array.from({ length: 2500 }, (_, i) => `line ${i}`)
    const diff = diffLines(['head', ...big, 'tail'], ['head', ...big.map((l) => `${l}!`), 'tail'])
    expect(diff.map((d) => d.op).join('')).toBe(` ${'-'.repeat(2500)}${'+'.repeat(2500)} `)
  })
})

describe('hunks', () => {
  it('numbers hunks as diff -u does, merging changes closer than twice the context', () => {
    const a = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10']
    const b = ['1', '2', 'X', '4', '5', '6', '7', '8', '9']
    expect(hunks(diffLines(a, b), 1).map((h) => h.header)).toEqual(['@@ -2,3 +2,3 @@', '@@ -9,2 +9 @@'])
    expect(hunks(diffLines(a, b), 3).map((h) => h.header)).toEqual(['@@ -1,10 +1,9 @@'])
    expect(hunks(diffLines([], ['new']), 3).map((h) => h.header)).toEqual(['@@ -0,0 +1 @@'])
    expect(hunks(diffLines(a, a))).toEqual([])
  })
})
