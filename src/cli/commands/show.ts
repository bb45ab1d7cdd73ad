import { defineCommand } from 'citty'
import pc from 'picocolors'
import type { Run } from '../../case/schema/run.ts'
import { formatUsd } from '../../cost/index.ts'
import { reportError } from '../internal/report-error.ts'
import { colorSeverity, outcomeText } from '../internal/run-text.ts'
import { stepRows } from '../internal/step-rows.ts'
import { STORE_DIR_ARG, withStore } from '../internal/store-args.ts'
import { formatTable } from '../internal/table.ts'
import { formatDiagnosis } from './diagnose.ts'

/** `crashlab show <id|last>`: one stored run: its checks, findings and step table. */
export const show = defineCommand({
  meta: { name: 'show', description: 'Show a stored run: checks, findings and the step table' },
  args: {
    run: { type: 'positional', description: 'a run id, a unique prefix of one, or `last`', required: true },
    ...STORE_DIR_ARG,
    json: { type: 'boolean', description: 'print the whole run as JSON' },
  },
  async run({ args }) {
    try {
      await withStore(args.dir, (store) => {
        const run = store.load(args.run)
        const tags = store.get(run.id).tags
        console.log(args.json ? JSON.stringify(run, null, 2) : formatRun(run, tags))
      })
    } catch (err) {
      reportError(err)
    }
  },
})

/**
 * The text `crashlab show` prints for a run.
 *
 * @example
 * console.log(formatRun(run, ['nightly']))
 */
export function formatRun(run: Run, tags: readonly string[] = []): string {
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
  lines.push('', pc.bold('steps'))
  lines.push(
    formatTable(['#', 'kind', 'name', 'in', 'out', 'error'], stepRows(run), { right: [0] }).replace(
      /^/gm,
      '  ',
    ),
  )
  return lines.join('\n')
}
