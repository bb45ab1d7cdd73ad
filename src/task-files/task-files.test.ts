import { describe, expect, it } from 'vitest'
import { slotOf } from './task-files.ts'

describe('slotOf', () => {
  it('deals every trial to exactly one file, every file busy, and each file gets both arms of an interleaved plan', () => {
    for (const slots of [1, 2, 3, 4, 8]) {
      for (const k of [1, 2, 3, 5, 10]) {
        // patched-1, control-1, patched-2, control-2, …
        const arms = Array.from({ length: 2 * k }, (_, i) => (i % 2 === 0 ? 'patched' : 'control'))
        const files = arms.map((_, i) => slotOf(i, slots))
        for (const f of files) expect(f).toBeGreaterThanOrEqual(0)
        for (const f of files) expect(f).toBeLessThan(slots)
        const used = new Set(files)
        expect(used.size).toBe(Math.min(slots, arms.length))
        // Files with two trials or more hold both arms.
        for (const file of used) {
          const mine = arms.filter((_, i) => files[i] === file)
          if (mine.length >= 2 && slots > 1) expect(new Set(mine)).toEqual(new Set(['patched', 'control']))
        }
      }
    }
  })
})
