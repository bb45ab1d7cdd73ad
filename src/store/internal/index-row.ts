import type { Outcome, Run, RunStatus } from '../../case/schema/run.ts'
import type { Severity } from '../../case/schema/step.ts'
import type { StoredRunSummary, StoredRunTest } from '../types.ts'

/** Severities by rank: what `max_severity` stores, so that `minSeverity` is one comparison in SQL. */
export const SEVERITY_RANK: Record<Severity, number> = { info: 1, warn: 2, error: 3, critical: 4 }
const SEVERITY_BY_RANK: Array<Severity | null> = [null, 'info', 'warn', 'error', 'critical']

/**
 * One row of the `runs` table, column by column (snake_case, as SQLite holds it).
 *
 * @example
 * const row: IndexRow = rowOf(run, 'runs/01JH….cassette.json')
 */
export interface IndexRow {
  id: string
  name: string
  status: string
  outcome: string
  started_at: string
  ended_at: string | null
  steps: number
  llm_calls: number
  tool_calls: number
  tokens: number
  cost_usd: number | null
  f_info: number
  f_warn: number
  f_error: number
  f_critical: number
  max_severity: number
  failed_checks: number
  replay_of: string | null
  forked_from: string | null
  path: string
}

/** The columns of `runs`, in table order. */
export const ROW_COLUMNS = [
  'id',
  'name',
  'status',
  'outcome',
  'started_at',
  'ended_at',
  'steps',
  'llm_calls',
  'tool_calls',
  'tokens',
  'cost_usd',
  'f_info',
  'f_warn',
  'f_error',
  'f_critical',
  'max_severity',
  'failed_checks',
  'replay_of',
  'forked_from',
  'path',
] as const satisfies ReadonlyArray<keyof IndexRow>

/**
 * What the index keeps of a run: counts and links, never content (the cassette has that).
 *
 * @example
 * insert.run(rowOf(run, 'runs/01JH….cassette.json'))
 */
export function rowOf(run: Run, relativePath: string): IndexRow {
  const f = { info: 0, warn: 0, error: 0, critical: 0 }
  let max = 0
  for (const finding of run.findings) {
    f[finding.severity]++
    max = Math.max(max, SEVERITY_RANK[finding.severity])
  }
  return {
    id: run.id,
    name: run.name,
    status: run.status,
    outcome: run.outcome,
    started_at: run.startedAt,
    ended_at: run.endedAt,
    steps: run.steps.length,
    llm_calls: run.usage.llmCalls,
    tool_calls: run.usage.toolCalls,
    tokens: run.usage.inputTokens + run.usage.outputTokens,
    cost_usd: run.cost?.usd ?? null,
    f_info: f.info,
    f_warn: f.warn,
    f_error: f.error,
    f_critical: f.critical,
    max_severity: max,
    failed_checks: run.checks.filter((c) => !c.passed).length,
    replay_of: run.links.replayOf ?? null,
    forked_from: run.links.forkedFrom ?? null,
    path: relativePath,
  }
}

/**
 * A row read back (with its tags as a JSON array) as the public summary; `path` made absolute.
 *
 * @example
 * summaryOf(row, '["nightly"]', (rel) => resolve(store.dir, rel))
 */
export function summaryOf(
  row: IndexRow,
  tagsJson: string | null,
  absolute: (path: string) => string,
  testJson?: string | null,
): StoredRunSummary {
  const tags = tagsJson ? (JSON.parse(tagsJson) as Array<string | null>) : []
  const summary: StoredRunSummary = {
    id: row.id,
    name: row.name,
    status: row.status as RunStatus,
    outcome: row.outcome as Outcome,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    steps: row.steps,
    llmCalls: row.llm_calls,
    toolCalls: row.tool_calls,
    tokens: row.tokens,
    costUsd: row.cost_usd,
    findings: { info: row.f_info, warn: row.f_warn, error: row.f_error, critical: row.f_critical },
    maxSeverity: SEVERITY_BY_RANK[row.max_severity] ?? null,
    failedChecks: row.failed_checks,
    tags: tags.filter((t): t is string => typeof t === 'string').sort(),
    path: absolute(row.path),
  }
  if (row.replay_of) summary.replayOf = row.replay_of
  if (row.forked_from) summary.forkedFrom = row.forked_from
  if (testJson) summary.test = JSON.parse(testJson) as StoredRunTest
  return summary
}
