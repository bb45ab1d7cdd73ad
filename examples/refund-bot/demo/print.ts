import pc from 'picocolors'
import { formatUsd, type Run } from '../../../src/index.ts'

/** `pass · 5 steps · 830 tokens · $0`, or the error that ended the run. */
export function outcomeLine(run: Run, error: unknown): string {
  const outcome =
    run.outcome === 'pass' ? pc.green('pass') : run.outcome === 'fail' ? pc.red('fail') : pc.dim(run.outcome)
  const parts = [
    outcome,
    `${run.status}`,
    `${run.steps.length} steps`,
    `${run.usage.inputTokens + run.usage.outputTokens} tokens`,
    run.cost ? formatUsd(run.cost.usd) : 'cost unknown',
  ]
  const failed = run.checks.filter((c) => !c.passed).map((c) => c.name)
  if (failed.length) parts.push(pc.red(`failed: ${failed.join(', ')}`))
  if (error) parts.push(pc.red(`stopped: ${(error as Error).message.split('\n')[0]?.slice(0, 90)}`))
  return parts.join(' · ')
}

/** `findings: 1 error bad_tool_args (step 2)`, or `no findings`. */
export function findingsText(run: Run): string {
  if (run.findings.length === 0) return pc.dim('no findings')
  return `findings: ${run.findings.map((f) => `${f.severity} ${f.kind} (step ${f.steps.join(', ')})`).join('; ')}`
}
