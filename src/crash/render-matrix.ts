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

const MARK: Record<CrashOutcome, string> = {
  survived: '✓ survived',
  failed: '✗ failed',
  diverged: '~ diverged',
}

/**
 * A crash-test matrix as text: one row per step, one column per fault (a fault that does not fit a
 * step — a model fault at a tool call — is `·`), then the failed and diverged cells with their detail,
 * and the counts.
 *
 * @example
 * console.log(renderCrashMatrix(matrix.cells, run, { colors: pc }))
 */
export function renderCrashMatrix(
  cells: readonly CrashCellResult[],
  run?: Pick<Run, 'steps'>,
  options: { colors?: MatrixColors } = {},
): string {
  const c = options.colors ?? PLAIN
  if (cells.length === 0) return 'No cell: none of the faults fits any of the steps chosen.'
  const faults = [...new Map(cells.map((cell) => [faultLabel(cell.fault), cell.fault])).keys()]
  const steps = [...new Set(cells.map((cell) => cell.step))].sort((a, b) => a - b)
  const byKey = new Map(cells.map((cell) => [`${cell.step} ${faultLabel(cell.fault)}`, cell]))
  const stepName = (index: number) => {
    const step = run?.steps[index]
    return `step ${index}${step ? ` ${step.type === 'tool' ? step.name : step.type}` : ''}`
  }
  const header = ['', ...faults]
  const rows = steps.map((step) => [
    stepName(step),
    ...faults.map((fault) => {
      const cell = byKey.get(`${step} ${fault}`)
      return cell ? MARK[cell.outcome] : '·'
    }),
  ])
  const widths = header.map((_, i) => Math.max(...[header, ...rows].map((row) => (row[i] ?? '').length)))
  const paint = (text: string) =>
    text.startsWith('✓')
      ? c.green(text)
      : text.startsWith('✗')
        ? c.red(text)
        : text.startsWith('~')
          ? c.yellow(text)
          : c.dim(text)
  const line = (row: string[], painted: boolean) =>
    row
      .map((cell, i) => {
        const padded = cell.padEnd(widths[i] ?? 0)
        return painted && i > 0 ? paint(padded) : padded
      })
      .join('  ')
      .trimEnd()
  const out = [c.dim(line(header, false)), ...rows.map((row) => line(row, true))]
  const notable = cells.filter((cell) => cell.outcome !== 'survived')
  if (notable.length) {
    out.push('')
    for (const cell of notable)
      out.push(
        `${paint(MARK[cell.outcome])} ${stepName(cell.step)} × ${faultLabel(cell.fault)}: ${cell.detail}`,
      )
  }
  const count = (o: CrashOutcome) => cells.filter((cell) => cell.outcome === o).length
  out.push(
    '',
    `${cells.length} cells: ${count('survived')} survived, ${count('failed')} failed, ${count('diverged')} diverged`,
  )
  return out.join('\n')
}
