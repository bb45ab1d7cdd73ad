import { describe, expect, it } from 'vitest'
import type { CrashCell } from '../crash/inject.ts'
import { crashCellsOfSlot } from './crash-plan-file.ts'

const cells: CrashCell[] = Array.from({ length: 11 }, (_, i) => ({
  step: Math.floor(i / 3),
  fault: { kind: i % 2 ? 'rate_limit' : 'tool_throw' } as CrashCell['fault'],
}))

describe('crashCellsOfSlot', () => {
  it('deals every cell to exactly one file, round-robin, each with its place in the matrix', () => {
    for (const slots of [1, 2, 3, 4, 8, 11]) {
      const dealt = Array.from({ length: slots }, (_, slot) => crashCellsOfSlot(cells, slot, slots))
      const indexes = dealt.flat().map((d) => d.index)
      expect(indexes.sort((a, b) => a - b)).toEqual(cells.map((_, i) => i))
      for (const [slot, mine] of dealt.entries()) {
        for (const { index, cell } of mine) {
          expect(index % slots).toBe(slot)
          expect(cell).toBe(cells[index])
        }
        // Files differ by one cell at most.
        expect(mine.length).toBeGreaterThanOrEqual(Math.floor(cells.length / slots))
        expect(mine.length).toBeLessThanOrEqual(Math.ceil(cells.length / slots))
      }
    }
  })

  it('deals the same cells to a file on every call (every shard computes the same files)', () => {
    expect(crashCellsOfSlot(cells, 1, 4)).toEqual(crashCellsOfSlot([...cells], 1, 4))
    expect(crashCellsOfSlot(cells, 1, 4).map((d) => d.index)).toEqual([1, 5, 9])
  })
})
