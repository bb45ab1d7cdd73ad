import { basename } from 'node:path'
import pc from 'picocolors'
import type { TestModule } from 'vitest/node'
import type { CrashlabTaskMeta, RunSummary } from '../../fixtures/index.ts'
import { formatUsd } from '../../src/internal.ts'

/** The picocolors functions the table uses; `pc.createColors(false)` renders plain text. */
export type TableColors = Pick<typeof pc, 'red' | 'yellow' | 'green' | 'dim'>

/**
 * One agent run of the test run: the test that ran it, Vitest's verdict on the test, and the summary
 * agentCase or the `agent` fixture put on `task.meta.crashlab.run`.
 *
 * @example
 * const row: RunRow = { file: 'test/refund.test.ts', test: 'refund', state: 'passed', run: testCase.meta().crashlab!.run! }
 */
export interface RunRow {
  /** The test file, as the table shows it when the rows come from more than one file. */
  file: string
  /** The test's full name (`describe > test`). */
  test: string
  state: 'passed' | 'failed' | 'skipped' | 'pending'
  run: RunSummary
}

/** How many rows the table shows at most by default; failing and flagged rows come first. */
export const RUN_TABLE_LIMIT = 20
const MAX_TEST_WIDTH = 56
const SEVERITIES = ['critical', 'error', 'warn', 'info'] as const

/**
 * The rows of every test that carries a run summary, in the order the tests ran.
 *
 * @example
 * const rows = runRowsOf(testModules) // in a reporter's onTestRunEnd
 */
export function runRowsOf(testModules: ReadonlyArray<TestModule>): RunRow[] {
  const rows: RunRow[] = []
  for (const module of testModules) {
    for (const test of module.children.allTests()) {
      const run = (test.meta() as { crashlab?: CrashlabTaskMeta }).crashlab?.run
      if (run) rows.push({ file: module.moduleId, test: test.fullName, state: test.result().state, run })
    }
  }
  return rows
}

/**
 * The summary table of the agent runs, one line per row: test, outcome, steps, tokens, cost,
 * findings. Failing rows (the test failed, the oracles failed, the run errored) come first, then rows
 * with findings or an incomplete run, then the rest in run order; past `limit` rows one line says how
 * many more there are. A total line follows when there is more than one row. Empty for no rows.
 *
 * @example
 * for (const line of renderRunTable(runRowsOf(testModules))) logger.log(line)
 * //   test                   outcome  steps  tokens     cost  findings
 * //   ✗ refund over limit    fail         5     476  $0.0021  1 critical
 * //   ✓ clean refund         pass         5     476        —  —
 */
export function renderRunTable(
  rows: readonly RunRow[],
  options: { limit?: number; colors?: TableColors } = {},
): string[] {
  if (rows.length === 0) return []
  const c = options.colors ?? pc
  const limit = Math.max(1, options.limit ?? RUN_TABLE_LIMIT)
  const manyFiles = new Set(rows.map((r) => r.file)).size > 1
  const ranked = rows
    .map((row, index) => ({ row, index, rank: rankOf(row) }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
  const shown = ranked.slice(0, limit)
  const hidden = ranked.slice(limit)

  const header: Cell[] = ['test', 'outcome', 'steps', 'tokens', 'cost', 'findings'].map((text) => ({
    text,
    paint: c.dim,
  }))
  const lines = [header, ...shown.map(({ row }) => cellsOf(row, manyFiles, c))]
  const right = [false, false, true, true, true, false]
  const widths = header.map((_, i) => Math.max(...lines.map((cells) => cells[i]!.text.length)))
  const out = lines.map(
    (cells) =>
      `  ${cells
        .map((cell, i) => {
          const gap = ' '.repeat(widths[i]! - cell.text.length)
          const text = cell.paint ? cell.paint(cell.text) : cell.text
          if (right[i]) return gap + text
          return i === cells.length - 1 ? text : text + gap
        })
        .join('  ')}`,
  )
  if (hidden.length > 0) {
    const flagged = hidden.filter((h) => h.rank < 2).length
    out.push(
      c.dim(`  … ${hidden.length} more${flagged ? ` (${flagged} failing or flagged)` : ', all passing'}`),
    )
  }
  if (rows.length > 1) out.push(c.dim(`  ${totalLine(rows)}`))
  return out
}

interface Cell {
  text: string
  paint?: (text: string) => string
}

/** 0: failing, 1: flagged (findings, an incomplete run), 2: clean. */
function rankOf({ state, run }: RunRow): number {
  if (state === 'failed' || run.outcome === 'fail' || run.status === 'error') return 0
  const f = run.findings
  if (run.status !== 'ok' || (f && f.critical + f.error + f.warn > 0)) return 1
  return 2
}

function cellsOf(row: RunRow, manyFiles: boolean, c: TableColors): Cell[] {
  const { run } = row
  const name = truncate(manyFiles ? `${basename(row.file)} > ${row.test}` : row.test, MAX_TEST_WIDTH)
  const mark = row.state === 'failed' ? '✗' : row.state === 'passed' ? '✓' : '·'
  const outcome = run.status === 'ok' ? run.outcome : `${run.outcome}, ${run.status}`
  const worst = SEVERITIES.find((s) => (run.findings?.[s] ?? 0) > 0)
  return [
    { text: `${mark} ${name}`, paint: row.state === 'failed' ? c.red : undefined },
    {
      text: outcome,
      paint:
        run.outcome === 'fail' || run.status === 'error' ? c.red : run.outcome === 'pass' ? c.green : c.dim,
    },
    { text: String(run.steps) },
    { text: run.tokens.toLocaleString('en-US') },
    costCell(run.costUsd, c),
    {
      text: findingsText(run.findings) || '—',
      paint: worst === 'critical' || worst === 'error' ? c.red : worst === 'warn' ? c.yellow : c.dim,
    },
  ]
}

function costCell(costUsd: number | null | undefined, c: TableColors): Cell {
  return typeof costUsd === 'number' ? { text: formatUsd(costUsd) } : { text: '—', paint: c.dim }
}

/** `1 critical, 2 warn`: worst first, only the severities that occur; empty when there are none. */
function findingsText(findings: RunSummary['findings']): string {
  if (!findings) return ''
  return SEVERITIES.filter((s) => findings[s] > 0)
    .map((s) => `${findings[s]} ${s}`)
    .join(', ')
}

/** `3 runs · 1,428 tokens · $0.0063 (1 unpriced)`: the cost sums the priced runs only. */
function totalLine(rows: readonly RunRow[]): string {
  const tokens = rows.reduce((sum, r) => sum + r.run.tokens, 0)
  const priced = rows.filter((r) => typeof r.run.costUsd === 'number')
  const parts = [`${rows.length} runs`, `${tokens.toLocaleString('en-US')} tokens`]
  if (priced.length > 0) {
    const usd = priced.reduce((sum, r) => sum + (r.run.costUsd ?? 0), 0)
    const unpriced = rows.length - priced.length
    parts.push(`${formatUsd(usd)}${unpriced ? ` (${unpriced} unpriced)` : ''}`)
  }
  return `total: ${parts.join(' · ')}`
}

function truncate(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, width - 1)}…`
}
