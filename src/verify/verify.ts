import { providerFailure } from '../case/provider-failure.ts'
import type { FixProposal, Run, Trial, TrialOutcome, Verification } from '../case/schema/run.ts'
import { CrashlabError, isCrashlabError } from '../errors.ts'
import { requestAt } from '../fix/prompt.ts'
import { type ForkOptions, type ForkResult, fork } from '../fork/fork.ts'
import { parsePatch } from '../patches/parse-patch.ts'
import type { Patch } from '../patches/patch-schema.ts'
import { failingStepOf } from '../report/failing-step.ts'
import type { RunStore } from '../store/types.ts'
import { armStats, decideVerdict } from './stats.ts'

/** How many trials per arm `verify` runs unless told. @example verify(run, { fix: 'fix-1', k: DEFAULT_K }) */
export const DEFAULT_K = 5
/** How many past good runs `regress: 'auto'` takes, newest first. @example DEFAULT_REGRESS_RUNS === 3 */
export const DEFAULT_REGRESS_RUNS = 3

/**
 * Which past good runs the patch is re-run on: `auto` (the newest passing runs of the same agent in the
 * store), `none`, run ids, or every passing run with a tag.
 *
 * @example
 * const regress: RegressOption = { tag: 'golden' }
 */
export type RegressOption = 'auto' | 'none' | readonly string[] | { tag: string }

/**
 * Options of `verify`.
 *
 * @example
 * const options: VerifyOptions = { fix: 'fix-1', k: 10, regress: 'none', baseUrl: 'http://127.0.0.1:8787/v1' }
 */
export interface VerifyOptions {
  /** The fix: an id among `run.fixes` (`fix-1`), or a patch (then kept in `run.fixes` as `fixId`). */
  fix: string | Patch
  /** The id a fix given as a patch is kept under. Default `manual-N`. */
  fixId?: string
  /** Trials per arm. Default 5. */
  k?: number
  /** Past good runs the patch must not break. Default `auto` with a store, `none` without. */
  regress?: RegressOption
  /** Run k unpatched controls beside the k patched forks. Default true. */
  control?: boolean
  /** The step the forks go live from. Default: the model call that led to the diagnosed (or failing) step. */
  atStep?: number
  /** Stop starting forks once their cost reaches this many USD. Default: no limit. */
  maxCostUsd?: number
  /**
   * Milliseconds between the forks' live model calls, across all forks (a provider's rate limit); for a
   * run of an `agentCase` test, between fork starts. Default 0.
   */
  paceMs?: number
  /**
   * How many forks of the verified run may run at once, in this process (each in its own Session,
   * sharing one interceptor). Past good runs always run one at a time, after them. Default 1.
   */
  concurrency?: number
  /** Sends the forks' live model calls to this origin (see `fork`). */
  baseUrl?: string
  /** Saves every fork (tagged `verify`, `verify:<run id>`, the fix id and the arm) and the verification with the run. */
  store?: RunStore
  /** Where entry points are resolved. Default `process.cwd()`. */
  cwd?: string
  /** The project config file: a path, or `false` for none. */
  config?: string | false
  /** Called after each fork with how far the verification is. */
  onProgress?: (progress: VerifyProgress) => void
}

/**
 * Where a verification stands, after each fork.
 *
 * @example
 * onProgress: ({ done, total, trial }) => console.error(`${done}/${total} ${trial.arm} ${trial.outcome}`)
 */
export interface VerifyProgress {
  done: number
  total: number
  trial: Trial
  costUsd: number
}

/**
 * One fork a verification plans: which run it is forked from, where, with which patch.
 *
 * @example
 * const spec: TrialSpec = { id: 'patched-1', arm: 'patched', from: run.id, atStep: 2, patch }
 */
export interface TrialSpec {
  /** `patched-1`, `control-1`, `regress-<run id>`: unique in its plan. */
  id: string
  arm: Trial['arm']
  from: string
  atStep: number
  patch: Patch | null
}

/**
 * A verification laid out before it runs: the fix, the fork step and every trial. `verify` runs it in this
 * process; `crashlab verify --vitest` runs each trial as its own Vitest task.
 *
 * @example
 * const plan = planVerification(run, { fix: 'fix-1', k: 5, store })
 * console.log(plan.trials.length) // 10, plus the past good runs
 */
export interface VerifyPlan {
  runId: string
  fix: FixProposal
  patch: Patch
  k: number
  atStep: number
  control: boolean
  trials: TrialSpec[]
}

/**
 * What `verify` gives back.
 *
 * @example
 * const { verification, fix, run } = await verify(stored, { fix: 'fix-1', store })
 */
export interface VerifyResult {
  verification: Verification
  /** The fix, with `verification` set. */
  fix: FixProposal
  /** The verified run, with the fix's verification in `fixes` (as stored, when a store was given). */
  run: Run
}

/**
 * Verifies a fix the way a careful engineer would: k forks of the run with the patch against k forks
 * without it (the control: a fork goes live too, and a flaky agent passes some of those), plus the patch
 * re-run on past good runs, which must still pass. Each fork is judged by the run's oracles (`pass`,
 * `fail`), or `errored` when it could not be judged: a 429 or 5xx from the provider that the agent did
 * not get past, or a divergence before the fork step. Errored trials never count as failures. The
 * verdict (VERIFIED, LIKELY, INCONCLUSIVE, REJECTED) follows `decideVerdict`, from Wilson 95 % intervals;
 * pass^k is reported beside each pass rate. Forks run one after another, patched and control
 * interleaved (so a cost stop leaves both arms alike), then the past good runs.
 *
 * @example
 * const store = await openStore()
 * const run = store.load('last')
 * const { verification } = await verify(run, { fix: 'fix-1', k: 10, store, baseUrl: provider.url + '/v1' })
 * console.log(verification.verdict, verification.patched.passRate, verification.control?.passRate)
 */
export async function verify(run: Run, options: VerifyOptions): Promise<VerifyResult> {
  const plan = planVerification(run, options)
  const runs = new Map<string, Run>([[run.id, run]])
  for (const spec of plan.trials) {
    if (!runs.has(spec.from)) runs.set(spec.from, (options.store as RunStore).load(spec.from))
  }
  // The entry module is loaded once for all the forks (`entryCache`), not once per fork.
  const entryCache: NonNullable<ForkOptions['entryCache']> = new Map()
  // By the plan's index: overlapping forks finish in any order, the verification lists them in the plan's.
  const results: Array<Trial | undefined> = []
  const index = new Map(plan.trials.map((t, i) => [t, i]))
  let costUsd = 0
  let stopped: Verification['stopped'] = null
  let done = 0
  // `paceMs` spaces the forks' live model calls, across every lane (a fork of an `agentCase` test runs in
  // a Vitest child, where no hook of this process reaches: those forks' starts are spaced instead).
  const pace = options.paceMs ? paceGate(options.paceMs) : undefined
  const runOne = async (spec: TrialSpec): Promise<void> => {
    const from = runs.get(spec.from) as Run
    const viaVitest = from.entryPoint?.kind === 'test'
    if (pace && viaVitest) await pace()
    const trial = await runTrial(from, spec, plan, {
      ...options,
      entryCache,
      ...(pace && !viaVitest && { beforeLiveCall: pace }),
    })
    results[index.get(spec) as number] = trial
    costUsd += trial.costUsd ?? 0
    options.onProgress?.({ done: ++done, total: plan.trials.length, trial, costUsd })
  }
  // The forks of the verified run (patched and control) may overlap, up to `concurrency`: they share one
  // interceptor (same hosts) and each has its own Session. Past good runs, which may call other hosts,
  // run one at a time after them.
  const queue = plan.trials.filter((t) => t.arm !== 'regress')
  const regress = plan.trials.filter((t) => t.arm === 'regress')
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 1))
  const next = (from: TrialSpec[]): TrialSpec | undefined => {
    if (stopped || from.length === 0) return undefined
    if (options.maxCostUsd !== undefined && costUsd >= options.maxCostUsd) {
      stopped = 'max-cost'
      return undefined
    }
    return from.shift()
  }
  const lane = async (from: TrialSpec[]): Promise<void> => {
    for (let spec = next(from); spec; spec = next(from)) await runOne(spec)
  }
  await Promise.all(Array.from({ length: concurrency }, () => lane(queue)))
  await lane(regress)
  const trials = results.filter((t): t is Trial => t !== undefined)
  const verification = summarizeVerification(plan, trials, { costUsd, stopped })
  const fix: FixProposal = { ...plan.fix, verification }
  const others = run.fixes.filter((f) => f.id !== fix.id)
  const fixes = [...others, fix].sort((a, b) => a.rank - b.rank)
  const updated: Run = { ...run, fixes }
  options.store?.save(updated)
  return { verification, fix, run: updated }
}

/**
 * Lays out a verification: resolves the fix (an id among `run.fixes`, or a patch), the fork step, and
 * the past good runs, and lists the trials: `patched-1`, `control-1`, `patched-2`, … then one
 * `regress-<id>` per past good run (forked at its first model call, so all of it runs with the patch).
 * Throws `E_VERIFY_FIX` for an unknown fix id or an invalid patch, `E_VERIFY_STEP` for a run with no
 * model call to patch, `E_VERIFY_REGRESS` for a past run that is not a passing run of the store.
 *
 * @example
 * const plan = planVerification(run, { fix: 'fix-1', k: 3, regress: 'none' })
 * plan.trials.map((t) => t.id) // ['patched-1', 'control-1', 'patched-2', 'control-2', 'patched-3', 'control-3']
 */
export function planVerification(run: Run, options: VerifyOptions): VerifyPlan {
  const k = options.k ?? DEFAULT_K
  if (!Number.isInteger(k) || k < 1 || k > 1000) {
    throw new CrashlabError('E_VERIFY_FIX', `k must be an integer from 1 to 1000; got ${k}`, {
      subject: run.id,
    })
  }
  const { fix, patch } = resolveFix(run, options)
  const atStep = options.atStep ?? defaultForkStep(run)
  if (atStep === null) {
    throw new CrashlabError(
      'E_VERIFY_STEP',
      `run ${run.id} makes no model call a fix could change: there is no step to fork from.`,
      { subject: run.id },
    )
  }
  const control = options.control ?? true
  const trials: TrialSpec[] = []
  for (let i = 1; i <= k; i++) {
    trials.push({ id: `patched-${i}`, arm: 'patched', from: run.id, atStep, patch })
    if (control) trials.push({ id: `control-${i}`, arm: 'control', from: run.id, atStep, patch: null })
  }
  for (const good of regressRuns(run, options)) {
    const first = good.steps.find((s) => s.type === 'llm')
    if (!first) continue
    trials.push({ id: `regress-${good.id}`, arm: 'regress', from: good.id, atStep: first.index, patch })
  }
  return { runId: run.id, fix, patch, k, atStep, control, trials }
}

/**
 * Runs one planned trial: forks `from` (the run the spec names) and judges the fork. Stored with tags
 * `verify`, `verify:<verified run id>`, the fix id and the arm when `options.store` is given.
 *
 * @example
 * const trial = await runTrial(run, plan.trials[0], plan, { fix: 'fix-1', baseUrl })
 * trial.outcome // 'pass' | 'fail' | 'errored'
 */
export async function runTrial(
  from: Run,
  spec: TrialSpec,
  plan: VerifyPlan,
  options: Pick<VerifyOptions, 'baseUrl' | 'store' | 'cwd' | 'config'> &
    Pick<ForkOptions, 'entryCache' | 'beforeLiveCall'>,
): Promise<Trial> {
  let result: ForkResult
  try {
    result = await fork(from, {
      atStep: spec.atStep,
      ...(spec.patch && { patch: spec.patch }),
      ...(options.baseUrl && { baseUrl: options.baseUrl }),
      ...(options.store && {
        store: options.store,
        tags: ['verify', `verify:${plan.runId}`, plan.fix.id, spec.arm],
      }),
      ...(options.cwd && { cwd: options.cwd }),
      ...(options.config !== undefined && { config: options.config }),
      ...(options.entryCache && { entryCache: options.entryCache }),
      ...(options.beforeLiveCall && { beforeLiveCall: options.beforeLiveCall }),
    })
  } catch (error) {
    return {
      arm: spec.arm,
      from: spec.from,
      runId: null,
      outcome: 'errored',
      reason: oneLine(error),
      costUsd: null,
    }
  }
  const { outcome, reason } = judgeFork(result, spec.atStep)
  return {
    arm: spec.arm,
    from: spec.from,
    runId: result.stored ? result.run.id : null,
    outcome,
    ...(reason && { reason }),
    costUsd: result.run.cost?.usd ?? null,
  }
}

/**
 * Judges one fork: `pass` when its oracles passed (or, with no oracle, when it ended without an error
 * and without a finding at `error` or worse); `errored` when it could not be judged (a divergence before
 * the fork step, a fork that never went live, or a failed run whose live model calls hit a 429 or a 5xx,
 * or no answer at all); `fail` otherwise.
 *
 * @example
 * judgeFork(await fork(run, { atStep: 2 }), 2) // { outcome: 'fail', reason: 'check refund_within_policy failed: …' }
 */
export function judgeFork(result: ForkResult, atStep: number): { outcome: TrialOutcome; reason?: string } {
  const { run, error } = result
  if (
    isCrashlabError(error, 'E_DIVERGENCE') ||
    isCrashlabError(error, 'E_REPLAY_MISSING') ||
    isCrashlabError(error, 'E_FORK_STEP')
  ) {
    return { outcome: 'errored', reason: oneLine(error) }
  }
  const passed =
    run.outcome === 'pass' ||
    (run.outcome === 'unknown' &&
      run.status === 'ok' &&
      !run.findings.some((f) => f.severity === 'error' || f.severity === 'critical'))
  if (passed) return { outcome: 'pass' }
  const providerError = run.steps.find((s) => s.index >= atStep && providerFailure(s) !== null)
  if (providerError) {
    const status = providerFailure(providerError)?.status ?? null
    return {
      outcome: 'errored',
      reason: `the provider answered step ${providerError.index} with ${status ?? 'no response'}${providerError.error ? `: ${providerError.error.message}` : ''}`,
    }
  }
  const failedCheck = run.checks.find((c) => !c.passed)
  if (failedCheck)
    return {
      outcome: 'fail',
      reason: `check ${failedCheck.name} failed${failedCheck.message ? `: ${failedCheck.message}` : ''}`,
    }
  if (run.status !== 'ok')
    return {
      outcome: 'fail',
      reason: run.error ? `${run.error.name}: ${run.error.message}` : `run ${run.status}`,
    }
  const finding = run.findings.find((f) => f.severity === 'error' || f.severity === 'critical')
  return { outcome: 'fail', reason: finding ? `${finding.kind}: ${finding.message}` : 'the run did not pass' }
}

/**
 * The verification of a plan from its trials (any order: trials are grouped by arm), as `verify` and the
 * Vitest reporter of `crashlab verify --vitest` compute it.
 *
 * @example
 * const verification = summarizeVerification(plan, trials, { costUsd: 0.02, stopped: null })
 */
export function summarizeVerification(
  plan: VerifyPlan,
  trials: readonly Trial[],
  extra: { costUsd?: number; stopped?: Verification['stopped']; createdAt?: string } = {},
): Verification {
  const of = (arm: Trial['arm']) => trials.filter((t) => t.arm === arm).map((t) => t.outcome)
  const patched = armStats(of('patched'), plan.k)
  const control = plan.control ? armStats(of('control'), plan.k) : null
  const regressed = trials.filter((t) => t.arm === 'regress' && t.outcome === 'fail').map((t) => t.from)
  const { verdict, reason } = decideVerdict({ k: plan.k, patched, control, regressed })
  const costUsd = extra.costUsd ?? trials.reduce((sum, t) => sum + (t.costUsd ?? 0), 0)
  return {
    verdict,
    reason: extra.stopped === 'max-cost' ? `${reason} (stopped at the cost limit)` : reason,
    k: plan.k,
    atStep: plan.atStep,
    patched,
    control,
    trials: [...trials],
    costUsd,
    stopped: extra.stopped ?? null,
    createdAt: extra.createdAt ?? new Date().toISOString(),
  }
}

function resolveFix(run: Run, options: VerifyOptions): { fix: FixProposal; patch: Patch } {
  if (typeof options.fix === 'string') {
    const fix = run.fixes.find((f) => f.id === options.fix)
    if (!fix) {
      const known = run.fixes.map((f) => f.id)
      throw new CrashlabError(
        'E_VERIFY_FIX',
        `run ${run.id} has no fix ${JSON.stringify(options.fix)}` +
          (known.length > 0
            ? ` (it has ${known.join(', ')}).`
            : `: it has none yet. Propose some with \`crashlab fix ${run.id}\`, or pass a patch file.`),
        { subject: run.id },
      )
    }
    return { fix, patch: parsePatch(fix.patch, fix.id) }
  }
  let patch: Patch
  try {
    patch = parsePatch(options.fix, 'the fix')
  } catch (error) {
    throw new CrashlabError('E_VERIFY_FIX', `the fix is not a valid patch: ${oneLine(error)}`, {
      subject: run.id,
      cause: error,
    })
  }
  const id = options.fixId ?? `manual-${run.fixes.filter((f) => f.id.startsWith('manual-')).length + 1}`
  const existing = run.fixes.find((f) => f.id === id)
  const fix: FixProposal = {
    id,
    rank: existing?.rank ?? run.fixes.length + 1,
    patch: patch as unknown as FixProposal['patch'],
    rationale: existing?.rationale ?? 'given by hand',
    expectedEffect: existing?.expectedEffect ?? '',
  }
  return { fix, patch }
}

function defaultForkStep(run: Run): number | null {
  const failing = run.diagnosis?.failingStep ?? failingStepOf(run)?.index ?? null
  return requestAt(run, failing)?.step ?? null
}

function regressRuns(run: Run, options: VerifyOptions): Run[] {
  const regress = options.regress ?? (options.store ? 'auto' : 'none')
  if (regress === 'none') return []
  const store = options.store
  if (!store) {
    throw new CrashlabError(
      'E_VERIFY_REGRESS',
      'past good runs are looked up in a store: pass `store`, or `regress: "none"`.',
      { subject: run.id },
    )
  }
  // A test's run indexed from a Vitest session is guarded by its own test, not re-run here.
  const isOriginal = (s: { forkedFrom?: string; replayOf?: string; test?: unknown }) =>
    !s.forkedFrom && !s.replayOf && !s.test
  if (regress === 'auto') {
    return store
      .list({ name: run.name })
      .filter((s) => s.id !== run.id && s.outcome === 'pass' && isOriginal(s))
      .map((s) => store.load(s.id))
      .filter((r) => r.entryPoint !== null)
      .slice(0, DEFAULT_REGRESS_RUNS)
  }
  if ('tag' in regress) {
    return store
      .list({ tag: regress.tag })
      .filter((s) => s.id !== run.id && s.outcome === 'pass')
      .map((s) => store.load(s.id))
  }
  return regress.map((ref) => {
    const good = store.load(ref)
    if (good.outcome !== 'pass') {
      throw new CrashlabError(
        'E_VERIFY_REGRESS',
        `run ${good.id} did not pass (outcome ${good.outcome}): only passing runs can show a regression. Pick others, or use --regress none.`,
        { subject: good.id },
      )
    }
    return good
  })
}

function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error)
  return text.replace(/^\[crashlab\] /, '').split('\n')[0] as string
}

/** A gate that lets one caller through every `ms` milliseconds, in the order they arrive. */
function paceGate(ms: number): () => Promise<void> {
  let next = 0
  return async () => {
    const now = Date.now()
    const at = Math.max(now, next)
    next = at + ms
    if (at > now) await new Promise((resolve) => setTimeout(resolve, at - now))
  }
}
