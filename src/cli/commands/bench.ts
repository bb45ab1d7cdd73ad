import { pc } from '../../colors.ts'
import { diagnose } from '../../diagnose/diagnose.ts'
import { heuristicDiagnosis } from '../../diagnose/heuristic.ts'
import { BENCH_AGENTS } from '../../diagnose-bench/agents/index.ts'
import { HELDOUT_AGENTS } from '../../diagnose-bench/heldout/agents/index.ts'
import {
  type HeldoutBenchReport,
  type HeldoutDiagnoser,
  runHeldoutBench,
} from '../../diagnose-bench/heldout/run-heldout.ts'
import { HELDOUT_FAULT_KINDS } from '../../diagnose-bench/heldout/types.ts'
import {
  type LabelledScore,
  loadLabelledSet,
  scoreLabelledSet,
  scoreLabelledSetBy,
} from '../../diagnose-bench/labelled-set.ts'
import { type BenchReport, runBench } from '../../diagnose-bench/run-bench.ts'
import { formatShare, type ScoreCell } from '../../diagnose-bench/score.ts'
import { FAULT_KINDS } from '../../diagnose-bench/types.ts'
import { DEFAULT_K } from '../../verify/verify.ts'
import { defineCommand } from '../internal/command.ts'
import { usageError } from '../internal/parse-options.ts'
import { reportError } from '../internal/report-error.ts'
import { formatTable } from '../internal/table.ts'

/**
 * `crashlab bench`: injects faults (a dropped policy line, an HTML 502, a wrong tool, a bad argument)
 * into the agents of the tuning set (seen while tuning) on the scripted provider, several episodes per cell, and
 * scores the diagnosers' label and failing step with Wilson 95 % intervals. The LLM diagnoser, and the
 * verification of its fixes, run only when a model is configured. `--labelled <dir>` scores the
 * heuristic (and the LLM diagnoser, with a model) on a hand-labelled set instead. `--set heldout` runs the held-out set instead of the tuning
 * sets (five agents in new domains, fifteen fault kinds, never tuned on), `--set all` both, apart.
 *
 * @example
 * // npx crashlab bench --episodes 3 --seed 1
 * await runCommand(benchCommand, { rawArgs: ['--episodes', '3'] })
 */
export const benchCommand = defineCommand({
  meta: { name: 'bench', description: 'Score the diagnoser on injected faults, with Wilson intervals' },
  args: {
    set: {
      type: 'string',
      description:
        'tuning (the agents seen while tuning, default), heldout (the held-out set, never tuned on) or all',
      valueHint: 'name',
    },
    episodes: {
      type: 'string',
      description: 'episodes per agent × fault cell (default 3; held-out set: 2)',
      valueHint: 'n',
    },
    seed: { type: 'string', description: 'the first episode seed (default 1)', valueHint: 'n' },
    k: {
      type: 'string',
      description: `the most trials per arm when fixes are verified; they stop once decided (default ${DEFAULT_K})`,
      valueHint: 'n',
    },
    model: {
      type: 'string',
      description: 'the LLM diagnoser model (default $CRASHLAB_DIAGNOSER_MODEL; none: heuristic only)',
      valueHint: 'name',
    },
    'base-url': {
      type: 'string',
      description: 'the diagnoser endpoint (default $CRASHLAB_DIAGNOSER_BASE_URL)',
      valueHint: 'url',
    },
    'api-key-env': {
      type: 'string',
      description: 'the environment variable holding the key (default CRASHLAB_DIAGNOSER_API_KEY)',
      valueHint: 'VAR',
    },
    agent: {
      type: 'string',
      description: `only these agents, comma-separated (${BENCH_AGENTS.map((a) => a.name).join(', ')}; held-out: ${HELDOUT_AGENTS.map((a) => a.name).join(', ')})`,
      valueHint: 'names',
    },
    fault: {
      type: 'string',
      description: `only these cells, comma-separated (${FAULT_KINDS.join(', ')}; held-out: ${HELDOUT_FAULT_KINDS.join(', ')})`,
      valueHint: 'names',
    },
    labelled: {
      type: 'string',
      description: 'score the heuristic on a hand-labelled set (a folder with labels.json) instead',
      valueHint: 'dir',
    },
    json: { type: 'boolean', description: 'print the results as JSON' },
  },
  async run({ args }) {
    try {
      const keyVar = args['api-key-env'] ?? 'CRASHLAB_DIAGNOSER_API_KEY'
      if (args['api-key-env'] && process.env[keyVar] === undefined) {
        throw usageError(`--api-key-env ${keyVar}: that environment variable is not set`)
      }
      const model = args.model ?? process.env.CRASHLAB_DIAGNOSER_MODEL
      const baseUrl = args['base-url'] ?? process.env.CRASHLAB_DIAGNOSER_BASE_URL
      const apiKey = process.env[keyVar]
      const llm: HeldoutDiagnoser | undefined = model
        ? {
            name: 'llm',
            diagnose: (run) => diagnose(run, { model, baseUrl, apiKey, env: process.env, force: true }),
          }
        : undefined
      if (args.labelled !== undefined) {
        const labelled = loadLabelledSet(args.labelled)
        const heuristic = scoreLabelledSet(labelled)
        const byModel = llm ? await scoreLabelledSetBy(labelled, llm) : undefined
        if (args.json) {
          console.log(JSON.stringify(byModel ? { heuristic, llm: byModel } : heuristic, null, 2))
          return
        }
        const parts = [formatLabelledScore(heuristic, args.labelled)]
        if (byModel) parts.push(formatLabelledScore(byModel, args.labelled, 'llm'))
        console.log(parts.join('\n\n'))
        return
      }
      const set = args.set ?? 'tuning'
      if (set !== 'tuning' && set !== 'heldout' && set !== 'all') {
        throw usageError(`--set ${JSON.stringify(set)} is not one of tuning, heldout, all`)
      }
      if (set === 'all' && (args.agent !== undefined || args.fault !== undefined)) {
        throw usageError(
          '--agent and --fault pick from one set: pass --set tuning or --set heldout with them',
        )
      }
      const seed = whole(args.seed, '--seed', 1, 0)
      const progress = (line: string) => process.stderr.write(`${pc.dim(line)}\n`)
      const tuning =
        set === 'heldout'
          ? undefined
          : await runBench({
              episodes: whole(args.episodes, '--episodes', 3, 1),
              seed,
              k: whole(args.k, '--k', DEFAULT_K, 1),
              agents: pickList(args.agent, '--agent', BENCH_AGENTS, (a) => a.name),
              faults: pickList(args.fault, '--fault', FAULT_KINDS, (f) => f),
              model: args.model,
              baseUrl,
              apiKey,
              onProgress: progress,
            })
      let heldout: HeldoutBenchReport | undefined
      if (set !== 'tuning') {
        const diagnosers: HeldoutDiagnoser[] = [
          { name: 'heuristic', diagnose: (run) => heuristicDiagnosis(run) },
        ]
        if (llm) diagnosers.push(llm)
        heldout = await runHeldoutBench({
          diagnosers,
          episodes: whole(args.episodes, '--episodes', 2, 1),
          seed,
          agents: pickList(args.agent, '--agent', HELDOUT_AGENTS, (a) => a.name),
          faults: pickList(args.fault, '--fault', HELDOUT_FAULT_KINDS, (f) => f),
          onProgress: progress,
        })
      }
      if (args.json) {
        const out = set === 'all' ? { tuning, heldout } : (tuning ?? heldout)
        console.log(JSON.stringify(out, null, 2))
        return
      }
      const parts: string[] = []
      if (tuning) parts.push(formatBenchReport(tuning))
      if (heldout) parts.push(formatHeldoutReport(heldout))
      console.log(parts.join('\n\n'))
    } catch (err) {
      reportError(err)
    }
  },
})

function pickList<T>(
  value: string | undefined,
  option: string,
  all: readonly T[],
  nameOf: (item: T) => string,
): T[] | undefined {
  if (value === undefined) return undefined
  return value.split(',').map((name) => {
    const hit = all.find((item) => nameOf(item) === name.trim())
    if (hit === undefined) {
      throw usageError(`${option} ${JSON.stringify(name)} is not one of ${all.map(nameOf).join(', ')}`)
    }
    return hit
  })
}

function whole(value: string | undefined, option: string, fallback: number, min: number): number {
  if (value === undefined) return fallback
  const n = Number(value)
  if (!Number.isInteger(n) || n < min) {
    throw usageError(`${option} must be a whole number ≥ ${min}; got ${JSON.stringify(value)}`)
  }
  return n
}

/**
 * The tuning set's results as the terminal shows them, under a heading that says the diagnosers were
 * tuned on them: one table for the demo agents, one for calendar-assistant, then the LLM and fix lines.
 *
 * @example
 * console.log(formatBenchReport(await runBench({ episodes: 2 })))
 */
export function formatBenchReport(report: BenchReport): string {
  const demo = report.agents.filter((a) => !a.scoredApart).map((a) => a.name)
  const held = report.agents.filter((a) => a.scoredApart).map((a) => a.name)
  const last = report.seed + report.episodes - 1
  const seeds = report.episodes === 1 ? `seed ${report.seed}` : `seeds ${report.seed}–${last}`
  const table = (cells: readonly ScoreCell[]) =>
    formatTable(
      ['diagnoser', 'agent', 'fault', 'label correct [95% CI]', 'step correct [95% CI]'],
      cells.map((c) => [c.diagnoser, c.agent, c.fault, formatShare(c.label), formatShare(c.step)]),
    )
  const lines = [
    pc.bold(
      `Tuning set (seen while tuning): ${report.agents.length} agents × ${report.faults.length} faults (clean included) × ${report.episodes} episodes (${seeds}), scripted provider`,
    ),
    pc.dim(
      'The diagnosers were tuned on these agents: judge them by the held-out set (--set heldout), reported apart.',
    ),
  ]
  if (demo.length > 0) {
    lines.push(
      '',
      pc.bold(`Demo agents: ${demo.join(', ')}`),
      table(report.cells.filter((c) => !c.scoredApart)),
    )
  }
  for (const name of held) {
    lines.push(
      '',
      pc.bold(`${name}, scored apart (held out when built, seen while tuning since)`),
      table(report.cells.filter((c) => c.agent === name)),
    )
  }
  lines.push('')
  lines.push(
    report.llm ? `LLM: ${report.llm}` : 'LLM: not configured (set CRASHLAB_DIAGNOSER_MODEL or pass --model)',
  )
  if (report.fixes === null) lines.push('fixes: LLM not configured')
  else {
    const verified = report.fixes.filter((f) => f.verdict === 'VERIFIED').length
    lines.push(`fixes: ${verified}/${report.fixes.length} top fixes VERIFIED`)
    if (report.fixes.length > 0) {
      lines.push(
        formatTable(
          ['agent', 'fault', 'seed', 'fix', 'verdict', 'reason'],
          report.fixes.map((f) => [f.agent, f.fault, String(f.seed), f.fix ?? '-', f.verdict, f.reason]),
        ),
      )
    }
  }
  lines.push(
    pc.dim(
      'label: the diagnosed label is the injected one; step: the diagnosed step is the failing action (the model call or the tool step that ran it; none for clean). [a–b]: Wilson 95% interval, in %.',
    ),
  )
  return lines.join('\n')
}

/**
 * A diagnoser's score on a labelled set (the heuristic's unless named), with the confusion of labels.
 *
 * @example
 * console.log(formatLabelledScore(scoreLabelledSet(loadLabelledSet(dir)), dir))
 */
export function formatLabelledScore(score: LabelledScore, dir: string, diagnoser = 'heuristic'): string {
  const rows = Object.entries(score.confusion).map(([truth, said]) => [
    truth,
    Object.entries(said ?? {})
      .sort((a, b) => b[1] - a[1])
      .map(([label, n]) => `${label} ${n}`)
      .join(', '),
  ])
  return [
    pc.bold(`${diagnoser} on the labelled set ${dir} (${score.label.n} runs, seen while tuning)`),
    `label correct: ${formatShare(score.label)}`,
    `step correct:  ${formatShare(score.step)}`,
    '',
    formatTable(['true label', `${diagnoser} said`], rows),
  ].join('\n')
}

/**
 * The held-out set's figures as the terminal shows them, apart from the tuning sets': per diagnoser,
 * label accuracy, the exact culprit step and the culprit action's steps on failing runs, false alarms on
 * clean and on recovered runs, recall per true label, then one row per fault kind; every figure with its
 * Wilson 95 % interval.
 *
 * @example
 * console.log(formatHeldoutReport(await runHeldoutBench({ diagnosers: [heuristic] })))
 */
export function formatHeldoutReport(report: HeldoutBenchReport): string {
  const last = report.seed + report.episodes - 1
  const seeds = report.episodes === 1 ? `seed ${report.seed}` : `seeds ${report.seed}–${last}`
  const lines = [
    pc.bold(
      `Held-out set (never tuned on): ${report.agents.length} agents × ${report.faults.length} fault kinds × ${report.episodes} episodes (${seeds}) = ${report.runs.length} episodes`,
    ),
    `agents: ${report.agents.map((a) => `${a.name} (${a.wire})`).join(', ')}`,
  ]
  for (const [name, score] of Object.entries(report.scores)) {
    lines.push(
      '',
      pc.bold(`${name} on the held-out set`),
      formatTable(
        ['measure', 'k/n rate [95% CI]'],
        [
          ['label accuracy', formatShare(score.label)],
          ['exact culprit step (failing runs)', formatShare(score.exactStep)],
          ['culprit action step (failing runs)', formatShare(score.actionStep)],
          ['false alarms on clean runs', formatShare(score.falseAlarms.clean)],
          ['false alarms on recovered runs', formatShare(score.falseAlarms.recovered)],
          ...Object.entries(score.recall).map(([label, s]) => [`recall ${label}`, formatShare(s)]),
        ],
      ),
      formatTable(
        ['fault kind', 'label correct [95% CI]', 'exact step [95% CI]'],
        score.perKind.map((k) => [k.fault, formatShare(k.label), formatShare(k.step)]),
      ),
    )
  }
  lines.push(
    pc.dim(
      'false alarm: a run with nothing wrong (clean, or recovered from a transient error) diagnosed as a failure. exact step: the culprit step itself; action step: the model call or the tool step that ran it. [a–b]: Wilson 95% interval, in %.',
    ),
  )
  return lines.join('\n')
}
