import type { Run } from '../../case/schema/run.ts'
import type { Finding, Severity } from '../../case/schema/step.ts'
import { gradeRun } from '../../checks/grade-run.ts'
import { pc } from '../../colors.ts'
import { loadConfig } from '../../config/load-config.ts'
import { formatUsd } from '../../cost/index.ts'
import { defineCommand } from '../internal/command.ts'
import { parseSeverity, parseUsd, usageError } from '../internal/parse-options.ts'
import { reportError } from '../internal/report-error.ts'
import { colorSeverity } from '../internal/run-text.ts'
import { STORE_DIR_ARG, withStore } from '../internal/store-args.ts'

const RANK: Record<Severity, number> = { info: 0, warn: 1, error: 2, critical: 3 }

/**
 * `crashlab check <id|--all>`: runs the runtime detectors and the price catalog again over stored runs,
 * with the config file's checks and prices, and exits 1 when a run fails: a finding at or above
 * `--fail-on` (default error), a failed check (unless `--findings-only`), or a cost over `--max-cost`.
 */
export const check = defineCommand({
  meta: {
    name: 'check',
    description: 'Check stored runs for findings, failed checks and cost (exit 1 on a failure), for CI',
  },
  args: {
    run: {
      type: 'positional',
      description: 'a run id, a unique prefix, or `last` (or --all)',
      required: false,
    },
    all: { type: 'boolean', description: 'check every stored run' },
    ...STORE_DIR_ARG,
    save: { type: 'boolean', description: 'store the new findings and costs with the runs' },
    'findings-only': { type: 'boolean', description: "ignore the runs' check (oracle) results" },
    'fail-on': {
      type: 'string',
      description: 'the lowest finding severity that fails (default error)',
      valueHint: 'severity',
    },
    'max-cost': {
      type: 'string',
      description: 'fail a run that cost more, or whose cost is unknown',
      valueHint: 'usd',
    },
    json: { type: 'boolean', description: 'print the verdicts as JSON' },
  },
  async run({ args }) {
    try {
      if (!args.all && !args.run)
        throw usageError('crashlab check needs a run (an id, a prefix or `last`) or --all')
      if (args.all && args.run) throw usageError('give a run or --all, not both')
      const failOn = parseSeverity(args['fail-on'], '--fail-on') ?? 'error'
      const maxCost = parseUsd(args['max-cost'], '--max-cost')
      const { config } = await loadConfig()
      const verdicts = await withStore(args.dir, (store) => {
        const ids = args.all
          ? store.list({ limit: Number.MAX_SAFE_INTEGER }).map((r) => r.id)
          : [store.resolve(args.run as string)]
        return ids.map((id) => {
          const checked = gradeRun(store.load(id), config)
          if (args.save) store.save(checked)
          return verdictOf(checked, { failOn, maxCost, findingsOnly: args['findings-only'] === true })
        })
      })
      if (args.json) console.log(JSON.stringify(verdicts, null, 2))
      else for (const v of verdicts) console.log(formatVerdict(v))
      const failed = verdicts.filter((v) => !v.passed).length
      if (!args.json)
        console.log(
          `\n${verdicts.length - failed} passed, ${failed} failed${args.save ? ' (findings and costs saved)' : ''}`,
        )
      if (failed > 0) process.exitCode = 1
    } catch (err) {
      reportError(err)
    }
  },
})

interface Verdict {
  id: string
  name: string
  passed: boolean
  reasons: string[]
  findings: Finding[]
  costUsd: number | null
}

function verdictOf(
  run: Run,
  options: { failOn: Severity; maxCost: number | undefined; findingsOnly: boolean },
): Verdict {
  const reasons: string[] = []
  const failing = run.findings.filter((f) => RANK[f.severity] >= RANK[options.failOn])
  for (const f of failing)
    reasons.push(
      `${f.severity} ${f.kind}${f.steps.length ? ` at step ${f.steps.join(', ')}` : ''}: ${f.message}`,
    )
  if (!options.findingsOnly)
    for (const c of run.checks.filter((c) => !c.passed))
      reasons.push(`check ${c.name} failed${c.message ? `: ${c.message}` : ''}`)
  const cost = run.cost?.usd ?? null
  if (options.maxCost !== undefined) {
    if (cost === null)
      reasons.push(
        `cost unknown (no price for its models), so --max-cost ${formatUsd(options.maxCost)} cannot be met`,
      )
    else if (cost > options.maxCost)
      reasons.push(`cost ${formatUsd(cost)} over --max-cost ${formatUsd(options.maxCost)}`)
  }
  return {
    id: run.id,
    name: run.name,
    passed: reasons.length === 0,
    reasons,
    findings: run.findings,
    costUsd: cost,
  }
}

function formatVerdict(v: Verdict): string {
  const head = `${v.passed ? pc.green('✓') : pc.red('✖')} ${v.name} ${pc.dim(v.id)}`
  const notes = v.passed
    ? v.findings.map((f) => pc.dim(`    ${colorSeverity(f.severity)} ${f.kind}: ${f.message}`))
    : v.reasons.map((r) => `    ${r}`)
  return [head, ...notes].join('\n')
}
