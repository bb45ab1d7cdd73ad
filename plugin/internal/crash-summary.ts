import { relative } from 'node:path'
import pc from 'picocolors'
import type { TestModule } from 'vitest/node'
import type { CrashCellMeta, CrashlabTaskMeta } from '../../fixtures/index.ts'

/**
 * The reporter's lines about crash tests: for each `crashTest` base case that ran cells, a line with how
 * many cells survived, failed and diverged, then its matrix (faults × steps, and why each cell that did
 * not survive did not), drawn from each cell's `task.meta.crashlab.crash` in the order the cells were
 * declared. Empty when no crash cell ran.
 *
 * @example
 * lines.push(...(await crashSummaryLines(testModules, root)))
 * //   crash: refund (test/refund.test.ts): 25 cells · 12 survived · 11 failed · 2 diverged
 * //     steps: 0 llm · 1 get_order · 2 llm
 * //     …
 */
export async function crashSummaryLines(
  testModules: ReadonlyArray<TestModule>,
  root: string,
): Promise<string[]> {
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
  if (bases.size === 0) return []
  // The renderer loads only when a crash test ran.
  const { renderCrashMatrix } = await import('../../src/on-demand.ts')
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
    const names = new Map(cells.map((c) => [c.step, c.stepName ?? c.stepType]))
    const matrix = renderCrashMatrix(cells, undefined, { colors: pc, stepName: (i) => names.get(i) })
      // The summary line above has the counts.
      .replace(/\n\n[^\n]*$/, '')
      .split('\n')
      .map((line) => (line ? `    ${line}` : line))
    return [`  crash: ${test} ${pc.dim(`(${relative(root, file)})`)}: ${parts.join(' · ')}`, ...matrix].join(
      '\n',
    )
  })
}
