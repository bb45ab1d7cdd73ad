import { relative } from 'node:path'
import pc from 'picocolors'
import type { TestModule } from 'vitest/node'
import type { CrashCellMeta, CrashlabTaskMeta } from '../../fixtures/index.ts'

/**
 * The reporter's lines about crash tests: one per `crashTest` base case that ran cells, with how many
 * cells survived, failed and diverged (read from each cell's `task.meta.crashlab.crash`), in the order
 * the cells ran. Empty when no crash cell ran.
 *
 * @example
 * lines.push(...crashSummaryLines(testModules, root))
 * //   crash: refund (test/refund.test.ts): 25 cells · 12 survived · 11 failed · 2 diverged
 */
export function crashSummaryLines(testModules: ReadonlyArray<TestModule>, root: string): string[] {
  const bases = new Map<string, { file: string; test: string; cells: CrashCellMeta[] }>()
  for (const module of testModules) {
    for (const test of module.children.allTests()) {
      const crash = (test.meta() as { crashlab?: CrashlabTaskMeta }).crashlab?.crash
      if (!crash || 'missing' in crash) continue
      const key = `${module.moduleId}\u0000${crash.test}`
      const base = bases.get(key) ?? { file: module.moduleId, test: crash.test, cells: [] }
      base.cells.push(crash)
      bases.set(key, base)
    }
  }
  return [...bases.values()].map(({ file, test, cells }) => {
    const count = (outcome: CrashCellMeta['outcome']) => cells.filter((c) => c.outcome === outcome).length
    const failed = count('failed')
    const diverged = count('diverged')
    const parts = [
      `${cells.length} cell${cells.length === 1 ? '' : 's'}`,
      pc.green(`${count('survived')} survived`),
      failed ? pc.red(`${failed} failed`) : `${failed} failed`,
      diverged ? pc.yellow(`${diverged} diverged`) : `${diverged} diverged`,
    ]
    return `  crash: ${test} ${pc.dim(`(${relative(root, file)})`)}: ${parts.join(' · ')}`
  })
}
