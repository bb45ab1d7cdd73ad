import type { FixProposal, Run } from '../../case/schema/run.ts'
import { pc } from '../../colors.ts'
import { formatUsd } from '../../cost/index.ts'
import type { StoredRunSummary } from '../../store/index.ts'
import { defineCommand } from '../internal/command.ts'
import { reportError } from '../internal/report-error.ts'
import { colorSeverity, outcomeText, verdictText } from '../internal/run-text.ts'
import { stepRows } from '../internal/step-rows.ts'
import { STORE_DIR_ARG, withStore } from '../internal/store-args.ts'
import { formatTable } from '../internal/table.ts'
import { formatDiagnosis } from './diagnose.ts'
import { fixAttempts } from './report.ts'

/**
 * `crashlab show <ref>`: one stored run (by id, prefix, `last`, a test's cassette path or full name): its checks, findings, diagnosis, fixes (one line each, with
 * the verdict of their verification), the runs forked from it, and its step table.
 */
export const show = defineCommand({
  meta: { name: 'show', description: 'Show a stored run: checks, findings and the step table' },
  args: {
    run: {
      type: 'positional',
      description:
        'a run id, a unique prefix of one, `last`, a test\'s cassette path, or a test\'s full name ("file > describe > test")',
      required: true,
    },
    ...STORE_DIR_ARG,
    json: { type: 'boolean', description: 'print the whole run as JSON' },
  },
  async run({ args }) {
    try {
      await withStore(args.dir, (store) => {
        const run = store.load(args.run)
        if (args.json) {
          console.log(JSON.stringify(run, null, 2))
          return
        }
        const summary = store.get(run.id)
        console.log(formatRun(run, summary.tags, fixAttempts(store, run), summary))
      })
    } catch (err) {
      reportError(err)
    }
  },
})

/** A run forked from the shown one, as `crashlab show` lists it. */
export interface ShownAttempt {
  id: string
  fixId: string | null
  outcome: Run['outcome']
  status: Run['status']
  steps: number
  costUsd: number | null
  tags: readonly string[]
}

/**
 * The text `crashlab show` prints for a run, with the runs forked from it (`attempts`) when given, and
 * the test that ran it and where its cassette is (`stored`, for a run the Vitest plugin indexed).
 *
 * @example
 * console.log(formatRun(run, ['nightly']))
 */
export function formatRun(
  run: Run,
  tags: readonly string[] = [],
  attempts: readonly ShownAttempt[] = [],
  stored?: Pick<StoredRunSummary, 'test' | 'path'>,
): string {
  const lines: string[] = []
  const ms = run.endedAt ? Date.parse(run.endedAt) - Date.parse(run.startedAt) : null
  lines.push(`${pc.bold(run.name)} ${pc.dim(run.id)}`)
  lines.push(
    `  status ${run.status === 'ok' ? run.status : pc.red(run.status)} · outcome ${outcomeText(run.outcome)} · ` +
      `${run.steps.length} steps (${run.usage.llmCalls} llm, ${run.usage.toolCalls} tool) · ` +
      `${run.usage.inputTokens + run.usage.outputTokens} tokens · cost ${run.cost ? formatUsd(run.cost.usd) : 'unknown'}` +
      (ms === null ? '' : ` · ${ms} ms`),
  )
  lines.push(`  started ${run.startedAt}${tags.length ? ` · tags ${tags.join(', ')}` : ''}`)
  if (stored?.test) {
    const t = stored.test
    lines.push(
      `  test ${t.file} > ${t.name} · ${t.state} in Vitest session ${t.session} (${t.sessionStartedAt})`,
    )
    lines.push(pc.dim(`  cassette ${stored.path}`))
  }
  if (run.links.replayOf) lines.push(`  replay of ${run.links.replayOf}`)
  if (run.links.forkedFrom)
    lines.push(`  forked from ${run.links.forkedFrom} at step ${run.links.forkStep ?? '?'}`)
  if (run.error) lines.push(pc.red(`  error: ${run.error.name}: ${run.error.message}`))
  lines.push('', pc.bold('checks'))
  if (run.checks.length === 0) lines.push(pc.dim('  none (no oracle graded this run)'))
  for (const c of run.checks)
    lines.push(`  ${c.passed ? pc.green('✓') : pc.red('✖')} ${c.name}${c.message ? `: ${c.message}` : ''}`)
  lines.push('', pc.bold('findings'))
  if (run.findings.length === 0) lines.push(pc.dim('  none'))
  for (const f of run.findings) {
    const where = f.steps.length ? ` at step${f.steps.length === 1 ? '' : 's'} ${f.steps.join(', ')}` : ''
    lines.push(`  ${colorSeverity(f.severity)} ${f.kind}${where}: ${f.message}`)
    for (const quote of f.evidence.slice(0, 3)) lines.push(pc.dim(`      “${quote}”`))
  }
  if (run.diagnosis) lines.push('', pc.bold('diagnosis'), formatDiagnosis(run.diagnosis).replace(/^/gm, '  '))
  if (run.fixes.length) {
    lines.push('', pc.bold('fixes'))
    for (const fix of [...run.fixes].sort((a, b) => a.rank - b.rank)) lines.push(`  ${fixLine(fix)}`)
  }
  if (attempts.length) {
    lines.push('', pc.bold('fix attempts'))
    const rows = attempts.map((a) => [
      a.id,
      a.fixId ?? '-',
      outcomeText(a.outcome),
      a.status,
      String(a.steps),
      a.costUsd === null ? 'unknown' : formatUsd(a.costUsd),
      a.tags.join(','),
    ])
    lines.push(
      formatTable(['id', 'fix', 'outcome', 'status', 'steps', 'cost', 'tags'], rows, { right: [4] }).replace(
        /^/gm,
        '  ',
      ),
    )
  }
  lines.push('', pc.bold('steps'))
  lines.push(
    formatTable(['#', 'kind', 'name', 'in', 'out', 'error'], stepRows(run), { right: [0] }).replace(
      /^/gm,
      '  ',
    ),
  )
  return lines.join('\n')
}

/** `1. fix-1 VERIFIED 90% vs 11% (pass^3 70%): the rationale`, or `not verified`. */
function fixLine(fix: FixProposal): string {
  const v = fix.verification
  const pct = (x: number | null) => (x === null ? 'n/a' : `${Math.round(x * 100)}%`)
  let verdict = pc.dim('not verified')
  if (v) {
    const control = v.control ? ` vs ${pct(v.control.passRate)}` : ''
    const hat = v.patched.passHatK === null ? '' : `, pass^${v.passK ?? v.k} ${pct(v.patched.passHatK)}`
    const regressed = v.trials.filter((t) => t.arm === 'regress' && t.outcome === 'fail').length
    const extra = `${regressed ? `, ${regressed} past-good re-run${regressed === 1 ? '' : 's'} failed` : ''}${v.stopped ? `, stopped: ${v.stopped}` : ''}`
    verdict = `${verdictText(v.verdict)} ${pct(v.patched.passRate)}${control} (${formatUsd(v.costUsd)}${hat}${extra})`
  }
  return `${fix.rank}. ${pc.bold(fix.id)} ${verdict}: ${fix.rationale.replace(/\s*\n\s*/g, ' ')}`
}
