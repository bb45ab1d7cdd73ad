import { existsSync, readFileSync } from 'node:fs'
import { basename, extname, resolve } from 'node:path'
import type { ArmStats, Run, Trial, Verification } from '../../case/schema/run.ts'
import { pc } from '../../colors.ts'
import { parsePatch } from '../../patches/parse-patch.ts'
import type { RunStore } from '../../store/types.ts'
import { DEFAULT_SLOTS, runVerifyTasks } from '../../task-files/run-verify-tasks.ts'
import {
  DEFAULT_K,
  nextRound,
  planVerification,
  type RegressOption,
  summarizeVerification,
  type VerifyOptions,
  type VerifyPlan,
  type VerifyProgress,
  type VerifyResult,
  verify,
} from '../../verify/verify.ts'
import { defineCommand } from '../internal/command.ts'
import { parsePositiveInt, parseUsd, usageError } from '../internal/parse-options.ts'
import { reportError } from '../internal/report-error.ts'
import { STORE_DIR_ARG, withStore } from '../internal/store-args.ts'
import { formatTable } from '../internal/table.ts'
import { VITEST_REPORTER_ARGS } from '../internal/vitest-args.ts'

/** The options `verify` and `fix --verify` share. */
export const VERIFY_ARGS = {
  k: {
    type: 'string',
    description: `the most trials per arm: they stop once the verdict is decided (default ${DEFAULT_K})`,
    valueHint: 'n',
  },
  regress: {
    type: 'string',
    description:
      'past good runs to re-run with and without the patch: ID,ID | tag:X | none (default: the newest 3 passing runs of the agent)',
    valueHint: 'runs',
  },
  control: {
    type: 'boolean',
    default: true,
    description: 'run unpatched controls too (--no-control: none)',
  },
  pace: {
    type: 'string',
    description: "seconds between the forks' live model calls (rate limits)",
    valueHint: 's',
  },
  concurrency: {
    type: 'string',
    description: 'forks of the run at once, in this process (default 1; past good runs one at a time)',
    valueHint: 'n',
  },
  'max-cost': {
    type: 'string',
    description: 'stop starting forks once they cost this much',
    valueHint: 'usd',
  },
  'base-url': {
    type: 'string',
    description: "send the forks' live model calls to this origin instead of the recorded one",
    valueHint: 'url',
  },
  at: {
    type: 'string',
    description: 'the step the forks go live from (default: the diagnosed one)',
    valueHint: 'N',
  },
  cwd: {
    type: 'string',
    description: 'the folder the entry point is resolved in (default: here)',
    valueHint: 'path',
  },
} as const

/**
 * `crashlab verify <id> --fix fix-1`: forks of the run with the fix against forks without it, and each
 * past good run with and without it, in rounds until the sequential test decides the verdict or the
 * budget (`-k` trials per arm, `--max-cost`) runs out; prints both arms with Wilson 95 % intervals and
 * pass^k, the past good runs, and the verdict. Exit 0 on VERIFIED, 1 on any other verdict (a CI gate).
 *
 * @example
 * // npx crashlab verify last --fix fix-1 -k 10 --regress none --base-url http://127.0.0.1:8787
 * await runCommand(verifyCommand, { rawArgs: ['last', '--fix', 'fix-1', '-k', '10', '--regress', 'none'] })
 */
export const verifyCommand = defineCommand({
  meta: {
    name: 'verify',
    description:
      'Verify a fix: patched forks against controls, and past good runs with and without it, until a sequential test decides',
  },
  args: {
    run: { type: 'positional', description: 'a run id, a unique prefix, or `last`', required: true },
    fix: {
      type: 'string',
      description: 'a fix of the run (fix-1, as `crashlab fix` lists them) or a patch file (YAML or JSON)',
      valueHint: 'id|file',
      required: true,
    },
    ...VERIFY_ARGS,
    vitest: {
      type: 'boolean',
      description: 'run each fork as its own Vitest task, over the worker pool, in rounds until decided',
    },
    shard: {
      type: 'string',
      description:
        "with --vitest: Vitest's --shard (1/2), a fixed k with no rounds; merge the shards' blob reports with --merge-reports",
      valueHint: 'i/n',
    },
    ...VITEST_REPORTER_ARGS,
    slots: {
      type: 'string',
      description: 'with --vitest: task files the forks are spread over (default 8)',
      valueHint: 'n',
    },
    'merge-reports': {
      type: 'string',
      description: "draw the verdict from the shards' blob reports in this folder (vitest --merge-reports)",
      valueHint: 'dir',
    },
    ...STORE_DIR_ARG,
    json: { type: 'boolean', description: 'print the verification as JSON' },
  },
  async run({ args }) {
    try {
      await withStore(args.dir, async (store) => {
        const run = store.load(args.run)
        const fix = fixOption(run, args.fix)
        const options: VerifyOptions = { ...verifyOptionsOf(args, store), ...fix }
        if (args.vitest || args['merge-reports'] !== undefined) {
          process.exitCode = await verifyWithVitest(run, store, options, args)
          return
        }
        const { verification } = await runVerify(run, store, options, args.json)
        if (verification.verdict !== 'VERIFIED') process.exitCode = 1
      })
    } catch (err) {
      reportError(err)
    }
  },
})

/** Reads the options of VERIFY_ARGS. */
export function verifyOptionsOf(
  args: {
    k?: string
    regress?: string
    control?: boolean
    pace?: string
    'max-cost'?: string
    concurrency?: string
    'base-url'?: string
    at?: string
    cwd?: string
  },
  store: RunStore,
): Omit<VerifyOptions, 'fix'> {
  const pace = args.pace === undefined ? undefined : Number(args.pace)
  if (pace !== undefined && !(Number.isFinite(pace) && pace >= 0)) {
    throw usageError(`--pace takes seconds ≥ 0, as in --pace 1.5; got ${JSON.stringify(args.pace)}`)
  }
  const at = args.at === undefined ? undefined : Number(args.at)
  if (at !== undefined && !(Number.isInteger(at) && at >= 0)) {
    throw usageError(`--at must be a step number ≥ 0; got ${JSON.stringify(args.at)}`)
  }
  const maxCostUsd = parseUsd(args['max-cost'], '--max-cost')
  return {
    k: parsePositiveInt(args.k, '-k', DEFAULT_K),
    ...(args.concurrency !== undefined && {
      concurrency: parsePositiveInt(args.concurrency, '--concurrency', 1),
    }),
    regress: regressOf(args.regress),
    control: args.control !== false,
    ...(pace !== undefined && { paceMs: pace * 1000 }),
    ...(maxCostUsd !== undefined && { maxCostUsd }),
    ...(args['base-url'] && { baseUrl: args['base-url'] }),
    ...(at !== undefined && { atStep: at }),
    cwd: args.cwd ? resolve(args.cwd) : process.cwd(),
    store,
  }
}

/** Runs a verification with a progress bar on stderr and prints it (or its JSON). */
export async function runVerify(
  run: Run,
  store: RunStore,
  options: VerifyOptions,
  json: boolean | undefined,
): Promise<VerifyResult> {
  const bar = progressBar()
  if (!json) {
    console.log(
      `verifying ${typeof options.fix === 'string' ? options.fix : (options.fixId ?? 'the patch')} on run ${run.id} (${run.name}) …`,
    )
  }
  let result: VerifyResult
  try {
    result = await verify(run, { ...options, store, onProgress: bar.update })
  } finally {
    bar.done()
  }
  if (json) console.log(JSON.stringify(result.verification, null, 2))
  else console.log(formatVerification(result.verification, result.fix.id, run.id))
  return result
}

/** Pairs of each open arm a round of `--vitest` runs before the verdict is drawn again. @example ROUND_PAIRS === 5 */
export const ROUND_PAIRS = 5

/**
 * `--vitest` and `--merge-reports`: the verification as Vitest tasks (`runVerifyTasks`). Without
 * `--shard`, in rounds: each round is one Vitest run of the next pairs of the undecided arms
 * (`ROUND_PAIRS`), and another runs only while the verdict is undecided and the budget allows. A shard
 * runs its share of every trial the budget allows (a fixed k: shards cannot stop each other), and the
 * merge draws the verdict from all of them. Prints the verdict, or for a shard how to merge; returns the
 * exit code.
 */
async function verifyWithVitest(
  run: Run,
  store: RunStore,
  options: VerifyOptions,
  args: {
    shard?: string
    reporter?: string
    'output-file'?: string
    slots?: string
    'merge-reports'?: string
    json?: boolean
  },
): Promise<number> {
  const merge = args['merge-reports']
  if (options.maxCostUsd !== undefined || options.paceMs !== undefined || options.concurrency !== undefined) {
    throw usageError(
      '--max-cost, --pace and --concurrency pace the forks of one process; with --vitest the worker pool runs them: drop them, or run without --vitest',
    )
  }
  if (args.shard !== undefined && !/^\d+\/\d+$/.test(args.shard)) {
    throw usageError(`--shard takes i/n, as in --shard 1/2; got ${JSON.stringify(args.shard)}`)
  }
  const plan = merge === undefined ? planVerification(run, options) : null
  const fixId = plan?.fix.id ?? (typeof options.fix === 'string' ? options.fix : options.fixId)
  const tasks = (roundPlan: VerifyPlan | null, rounds?: { priorTrials: Trial[] }) =>
    runVerifyTasks(roundPlan, {
      // With --json, Vitest's own output goes to stderr, so stdout is only the JSON.
      stdio: args.json ? 'pipe' : 'inherit',
      storeDir: store.dir,
      cwd: options.cwd ?? process.cwd(),
      ...(options.baseUrl && { baseUrl: options.baseUrl }),
      ...(args.slots !== undefined && { slots: parsePositiveInt(args.slots, '--slots', DEFAULT_SLOTS) }),
      ...(args.shard && { shard: args.shard }),
      ...(args.reporter && { reporters: [args.reporter] }),
      ...(args['output-file'] && { outputFile: args['output-file'] }),
      ...(merge !== undefined && { mergeReports: merge }),
      ...(rounds && { rounds }),
    })
  const say = (line: string) => (args.json ? console.error(line) : console.log(line))
  let verification: Verification | undefined
  let code = 0
  if (plan && args.shard === undefined) {
    const ran = new Set<string>()
    let trials: Trial[] = []
    for (let round = 1; ; round++) {
      const next = nextRound(plan, ran, trials, { arms: ROUND_PAIRS, goodRuns: ROUND_PAIRS })
      if (next.done) {
        const stopped = next.decided && ran.size < plan.trials.length ? 'decided' : null
        verification = summarizeVerification(plan, trials, { stopped })
        const fresh = store.load(run.id)
        const fixes = [...fresh.fixes.filter((f) => f.id !== plan.fix.id), { ...plan.fix, verification }]
        store.save({ ...fresh, fixes: fixes.sort((a, b) => a.rank - b.rank) })
        break
      }
      say(
        `round ${round}: ${next.specs.length} forks (${ran.size} run so far, at most ${plan.trials.length})`,
      )
      for (const spec of next.specs) ran.add(spec.id)
      const result = await tasks({ ...plan, trials: next.specs }, { priorTrials: trials })
      if (args.json) process.stderr.write(result.stdout + result.stderr)
      const sofar = fixId ? result.verdicts[run.id]?.[fixId] : undefined
      if (!sofar) {
        console.error(
          `no verdict for ${fixId ?? 'the fix'} of run ${run.id} after round ${round}: see Vitest's output above`,
        )
        return result.code === 0 ? 1 : result.code
      }
      trials = sofar.trials
      code = result.code
    }
  } else {
    if (plan) {
      say(
        `shard ${args.shard}: a sharded verification keeps a fixed k (${plan.k} trials per arm, ${plan.trials.length} forks in all, no early stop): shards cannot stop each other`,
      )
    }
    const result = await tasks(plan)
    if (args.json) process.stderr.write(result.stdout + result.stderr)
    code = result.code
    verification = fixId ? result.verdicts[run.id]?.[fixId] : undefined
    if (!verification) {
      if (args.shard) {
        console.log(
          `shard ${args.shard} done. When every shard is: \`crashlab verify ${run.id} --fix ${fixId ?? '<fix>'} --merge-reports <dir of the blob reports>\``,
        )
        return code
      }
      console.error(`no verdict for ${fixId ?? 'the fix'} of run ${run.id}: see Vitest's output above`)
      return code === 0 ? 1 : code
    }
  }
  if (args.json) console.log(JSON.stringify(verification, null, 2))
  else console.log(formatVerification(verification, fixId as string, run.id))
  return verification.verdict === 'VERIFIED' ? 0 : 1
}

function fixOption(run: Run, value: string): Pick<VerifyOptions, 'fix' | 'fixId'> {
  if (run.fixes.some((f) => f.id === value)) return { fix: value }
  const file = resolve(value)
  if (!existsSync(file)) {
    const known = run.fixes.map((f) => f.id)
    throw usageError(
      `--fix ${value}: run ${run.id} has no such fix${known.length ? ` (it has ${known.join(', ')})` : ''}, and there is no such patch file`,
    )
  }
  const patch = parsePatch(readFileSync(file, 'utf8'), value)
  return { fix: patch, fixId: basename(file, extname(file)) }
}

function regressOf(value: string | undefined): RegressOption | undefined {
  if (value === undefined) return undefined
  if (value === 'none') return 'none'
  if (value.startsWith('tag:')) {
    const tag = value.slice(4)
    if (!tag) throw usageError('--regress tag: needs a tag, as in --regress tag:golden')
    return { tag }
  }
  const ids = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  if (ids.length === 0) throw usageError('--regress takes run ids (ID,ID), tag:X or none')
  return ids
}

/** Renders a verification: both arms as a table, the regressions, the verdict and its reason. */
export function formatVerification(v: Verification, fixId: string, runId: string): string {
  const pct = (x: number | null) => (x === null ? '—' : `${(x * 100).toFixed(0)}%`)
  const row = (name: string, a: ArmStats) => [
    name,
    String(a.trials),
    String(a.passed),
    String(a.failed),
    String(a.errored),
    pct(a.passRate),
    `${pct(a.lower)}–${pct(a.upper)}`,
    pct(a.passHatK),
  ]
  const rows = [row('patched', v.patched), ...(v.control ? [row('control', v.control)] : [])]
  const lines = [
    formatTable(
      ['arm', 'trials', 'passed', 'failed', 'errored', 'pass rate', '95% CI', `pass^${v.passK ?? v.k}`],
      rows,
      {
        right: [1, 2, 3, 4, 5, 6, 7],
      },
    ),
  ]
  const goodRuns = [...new Set(v.trials.filter((t) => t.arm === 'regress').map((t) => t.from))]
  if (goodRuns.length > 0) {
    lines.push('', `past good runs (${goodRuns.length}), passed with the patch / without:`)
    for (const id of goodRuns) {
      const of = (arm: Trial['arm']) => v.trials.filter((t) => t.from === id && t.arm === arm)
      const count = (ts: Trial[]) =>
        `${ts.filter((t) => t.outcome === 'pass').length}/${ts.filter((t) => t.outcome !== 'errored').length}`
      const withPatch = of('regress')
      const failed = withPatch.find((t) => t.outcome === 'fail')
      lines.push(
        `  ${id} ${count(withPatch)} / ${count(of('regress-control'))}${failed?.reason ? pc.dim(` — first failure with the patch: ${failed.reason}`) : ''}`,
      )
    }
  }
  const errored = v.trials.find((t) => t.outcome === 'errored')
  if (errored)
    lines.push(
      '',
      pc.yellow(`errored trials do not count as failures; first: ${errored.reason ?? 'no reason given'}`),
    )
  if (v.stopped === 'max-cost')
    lines.push('', pc.yellow(`stopped at the cost limit after ${v.trials.length} forks`))
  const perArm = Math.max(v.patched.trials, v.control?.trials ?? 0)
  const evidence =
    v.evidence === undefined
      ? ''
      : `, e-value ${v.evidence >= 100 ? v.evidence.toFixed(0) : v.evidence.toPrecision(2)} (VERIFIED at 20)`
  if (v.fixedK) lines.push('', `a fixed k of ${v.k} trials per arm, planned whole (no early stop)${evidence}`)
  else
    lines.push(
      '',
      `${perArm} trials per arm of at most ${v.k}${v.stopped === 'decided' ? ': stopped once decided' : ''}${evidence}`,
    )
  lines.push('', `forks from step ${v.atStep} · cost $${v.costUsd.toFixed(4)}`)
  const colour = { VERIFIED: pc.green, LIKELY: pc.cyan, INCONCLUSIVE: pc.yellow, REJECTED: pc.red }[v.verdict]
  lines.push(`${pc.bold(colour(v.verdict))} ${fixId}: ${v.reason}`)
  if (v.verdict === 'VERIFIED')
    lines.push(
      `next: \`npx crashlab export-test ${runId} --fix ${fixId} -o test/regressions\` writes it out as a regression test`,
    )
  return lines.join('\n')
}

/** A progress bar on stderr: redrawn in place on a terminal, one line per fork otherwise. */
function progressBar(): { update: (p: VerifyProgress) => void; done: () => void } {
  const tty = process.stderr.isTTY === true
  let drawn = false
  return {
    update({ done, total, trial, costUsd }) {
      const width = 24
      const filled = Math.round((done / total) * width)
      const text =
        `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} ` +
        `${trial.arm} ${trial.outcome}${costUsd > 0 ? ` · $${costUsd.toFixed(4)}` : ''}`
      if (tty) {
        process.stderr.write(`\r${text}\x1b[K`)
        drawn = true
      } else {
        process.stderr.write(`${text}\n`)
      }
    },
    done() {
      if (drawn) process.stderr.write('\n')
    },
  }
}
