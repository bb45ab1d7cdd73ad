import type { Run } from '../case/schema/run.ts'
import type { CrashGridCell } from '../report/render-html-report.ts'
import type { RunStore } from '../store/types.ts'
import { type Fault, faultLabel, parseFault } from './faults.ts'
import { type CrashCellResult, judgeVariant } from './judge.ts'

/**
 * The crash-test cells of a run, from the variants in the store (`crashlab crash-test` stores each one,
 * tagged `crash-test` and linked by `links.crashOf`): the newest variant of each fault at each step,
 * judged again from what the variant stored (its error, checks and outcome; a `survive` function is
 * not stored, so it plays no part). Steps first, then faults in the order they were first run.
 *
 * @example
 * renderHtmlReport(run, { crashCells: storedCrashCells(store, run.id) })
 */
export function storedCrashCells(store: RunStore, runId: string): CrashCellResult[] {
  const variants = store
    .list({ tag: 'crash-test', limit: 100_000 })
    .filter((s) => s.replayOf === runId)
    .sort((a, b) => a.startedAt.localeCompare(b.startedAt))
  const byCell = new Map<string, CrashCellResult>()
  for (const summary of variants) {
    let run: Run
    try {
      run = store.load(summary.id)
    } catch {
      continue // a variant whose cassette is gone is left out
    }
    const link = run.links.crashOf
    if (!link || link.run !== runId || link.fault === undefined) continue
    let fault: Fault
    try {
      fault = parseFault(link.fault)
    } catch {
      continue // a fault kind this crashlab does not know
    }
    const error = run.error
      ? Object.assign(new Error(run.error.message), { name: run.error.name })
      : undefined
    const judged = judgeVariant(run, fault, { error, injected: true })
    // The newest variant of a cell wins; the order is the first run's.
    const key = `${link.step}\u0000${faultLabel(fault)}`
    byCell.set(key, { step: link.step, fault, ...judged, runId: run.id })
  }
  return [...byCell.values()].sort((a, b) => a.step - b.step)
}

/**
 * Cells as the HTML report draws them: each fault by its label.
 *
 * @example
 * writeHtmlReport(path, run, { crashCells: gridCells(storedCrashCells(store, run.id)) })
 */
export function gridCells(cells: readonly CrashCellResult[]): CrashGridCell[] {
  return cells.map(({ step, fault, outcome, detail, runId }) => ({
    step,
    fault: faultLabel(fault),
    outcome,
    detail,
    ...(runId === undefined ? {} : { runId }),
  }))
}
