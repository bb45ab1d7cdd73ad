import type { Run } from '../case/schema/run.ts'
import { faultLabel } from './faults.ts'
import type { CrashCellResult, CrashOutcome } from './judge.ts'

/** The colours a matrix is drawn with (picocolors' shape); identity functions draw it plain. */
export interface MatrixColors {
  green: (s: string) => string
  red: (s: string) => string
  yellow: (s: string) => string
  dim: (s: string) => string
}

const PLAIN: MatrixColors = { green: String, red: String, yellow: String, dim: String }

/** One character a cell, so a matrix of many steps stays narrow. */
const MARK: Record<CrashOutcome, string> = { survived: '✓', failed: '✗', diverged: '~' }

/** What does not fit: a model fault at a tool call, a tool fault at a model call, a step not chosen. */
const NO_CELL = '·'

/**
 * Options of `renderCrashMatrix`.
 *
 * @example
 * renderCrashMatrix(cells, undefined, { stepName: (i) => names[i], colors: pc })
 */
export interface RenderMatrixOptions {
  colors?: MatrixColors
  /**
   * What a step is (`llm`, a tool's name), when no run is given: a reporter knows it from its cells'
   * meta. Default: the run's step (its tool's name, or its type).
   */
  stepName?: (step: number) => string | undefined
}

/**
 * A crash-test matrix as text: one row per fault, one narrow column per step (`✓` survived, `✗` failed,
 * `~` diverged, `·` no cell: the fault does not fit that step), under a line naming each step; then the
 * failed and diverged cells with why, and the counts. Rows keep the faults' first order, columns the
 * steps' order: the same cells draw the same matrix whatever order they ran in.
 *
 * @example
 * console.log(renderCrashMatrix(matrix.cells, run, { colors: pc }))
 * // steps: 0 llm · 1 get_order · 2 llm
 * //                        0  1  2
 * // 429 (retry-after 0s)   ✓  ·  ✓
 * // tool HTML error        ·  ✗  ·
 * // …
 */
export function renderCrashMatrix(
  cells: readonly CrashCellResult[],
  run?: Pick<Run, 'steps'>,
  options: RenderMatrixOptions = {},
): string {
  const c = options.colors ?? PLAIN
  if (cells.length === 0) return 'No cell: none of the faults fits any of the steps chosen.'
  const faults = [...new Set(cells.map((cell) => faultLabel(cell.fault)))]
  const steps = [...new Set(cells.map((cell) => cell.step))].sort((a, b) => a - b)
  const byKey = new Map(cells.map((cell) => [`${cell.step} ${faultLabel(cell.fault)}`, cell]))
  const nameOf = (index: number): string => {
    const given = options.stepName?.(index)
    if (given) return given
    const step = run?.steps[index]
    return step ? (step.type === 'tool' ? step.name : step.type) : ''
  }
  const stepText = (index: number) => `step ${index}${nameOf(index) ? ` ${nameOf(index)}` : ''}`
  const paint = (outcome: CrashOutcome | undefined, text: string) =>
    outcome === 'survived'
      ? c.green(text)
      : outcome === 'failed'
        ? c.red(text)
        : outcome === 'diverged'
          ? c.yellow(text)
          : c.dim(text)

  const labelWidth = Math.max(...faults.map((f) => f.length))
  const columnWidth = Math.max(...steps.map((s) => String(s).length))
  const out = [
    c.dim(`steps: ${steps.map((s) => `${s}${nameOf(s) ? ` ${nameOf(s)}` : ''}`).join(' · ')}`),
    c.dim(`${' '.repeat(labelWidth)}  ${steps.map((s) => String(s).padStart(columnWidth)).join('  ')}`),
  ]
  for (const fault of faults) {
    const marks = steps.map((step) => {
      const cell = byKey.get(`${step} ${fault}`)
      return paint(cell?.outcome, (cell ? MARK[cell.outcome] : NO_CELL).padStart(columnWidth))
    })
    out.push(`${fault.padEnd(labelWidth)}  ${marks.join('  ')}`)
  }
  out.push(
    c.dim(
      `${c.green(MARK.survived)} survived  ${c.red(MARK.failed)} failed  ${c.yellow(MARK.diverged)} diverged  ${NO_CELL} no cell`,
    ),
  )
  const notable = [...cells]
    .filter((cell) => cell.outcome !== 'survived')
    .sort(
      (a, b) => a.step - b.step || faults.indexOf(faultLabel(a.fault)) - faults.indexOf(faultLabel(b.fault)),
    )
  if (notable.length) {
    out.push('')
    for (const cell of notable)
      out.push(
        `${paint(cell.outcome, `${MARK[cell.outcome]} ${cell.outcome}`)} ${stepText(cell.step)} × ${faultLabel(cell.fault)}: ${cell.detail}`,
      )
  }
  const count = (o: CrashOutcome) => cells.filter((cell) => cell.outcome === o).length
  out.push(
    '',
    `${cells.length} cell${cells.length === 1 ? '' : 's'}: ${count('survived')} survived, ${count('failed')} failed, ${count('diverged')} diverged`,
  )
  return out.join('\n')
}
