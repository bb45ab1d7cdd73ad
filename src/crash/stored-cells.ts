import type { Run } from '../case/schema/run.ts'
import type { CrashGridCell } from '../report/render-html-report.ts'
import type { RunStore } from '../store/types.ts'
import { type Fault, faultLabel, parseFault } from './faults.ts'
import { type CrashCellResult, judgeVariant } from './judge.ts'

/**
 * The crash-test cells of a run, newest of each fault at each step, from two sources:
 * - the variants in the store (`crashlab crash-test` stores each one, tagged `crash-test` and linked by
 *   `links.crashOf`), judged again from what the variant stored (its error, checks and outcome; a
 *   `survive` function is not stored, so it plays no part);
 * - the cells of the `crashTest` tests of the newest Vitest session that crashed the run's cassette,
 *   as the plugin indexed them (judged in the test, `survive` included; no variant is stored).
 * Steps first, then faults in the order they were first run.
 *
 * @example
 * renderHtmlReport(run, { crashCells: storedCrashCells(store, run.id) })
 */
export function storedCrashCells(store: RunStore, runId: string): CrashCellResult[] {
  const variants = store
    .list({ tag: 'crash-test', limit: 100_000 })
    .filter((s) => s.replayOf === runId)
    .sort((a, b) => a.startedAt.localeCompare(b.startedAt))
  const byCell = new Map<string, CrashCellResult & { at: string }>()
  for (const { cells, sessionStartedAt } of store.crashCellsOf(runId)) {
    for (const cell of cells) {
      const indexed = indexedCell(cell)
      if (indexed)
        byCell.set(`${indexed.step}\u0000${faultLabel(indexed.fault)}`, { ...indexed, at: sessionStartedAt })
    }
  }
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
    if ((byCell.get(key)?.at ?? '') > summary.startedAt) continue
    byCell.set(key, { step: link.step, fault, ...judged, runId: run.id, at: summary.startedAt })
  }
  return [...byCell.values()].map(({ at: _, ...cell }) => cell).sort((a, b) => a.step - b.step)
}

/** A cell as the session index keeps it (`CrashCellMeta`'s fields), or undefined when it is not one. */
function indexedCell(value: unknown): CrashCellResult | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const { step, fault, outcome, detail } = value as Record<string, unknown>
  if (typeof step !== 'number' || typeof detail !== 'string') return undefined
  if (outcome !== 'survived' && outcome !== 'failed' && outcome !== 'diverged') return undefined
  try {
    return { step, fault: parseFault(fault), outcome, detail }
  } catch {
    return undefined // a fault kind this crashlab does not know
  }
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
