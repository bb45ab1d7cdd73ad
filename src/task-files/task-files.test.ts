import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { slotOf, writeTaskFiles } from './task-files.ts'

describe('writeTaskFiles', () => {
  it("imports the package's public tasks entry (its exports' ./tasks), never a module path of the Vitest side", () => {
    const root = join(import.meta.dirname, '..', '..')
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      exports: Record<string, { default: string }>
    }
    const entry = pathToFileURL(join(root, pkg.exports['./tasks']!.default)).href
    const dir = mkdtempSync(join(tmpdir(), 'crashlab-task-files-'))
    try {
      const files = writeTaskFiles(dir, 'verify', 'defineVerifyTasks', 2)
      expect(files.map((f) => f.slice(dir.length + 1))).toEqual([
        'verify-01.crashlab-task.mjs',
        'verify-02.crashlab-task.mjs',
      ])
      const text = readFileSync(files[1]!, 'utf8')
      expect(text).toContain(`import { defineVerifyTasks } from ${JSON.stringify(entry)}`)
      expect(text).toContain('await defineVerifyTasks(1)')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

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
