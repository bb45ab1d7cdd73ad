import { providerFailure } from '../case/provider-failure.ts'
import type { FixProposal, Run, Trial, TrialOutcome, Verification } from '../case/schema/run.ts'
import { CrashlabError, isCrashlabError } from '../errors.ts'
import { requestAt } from '../fix/prompt.ts'
import { type ForkOptions, type ForkResult, fork } from '../fork/fork.ts'
import { parsePatch } from '../patches/parse-patch.ts'
import type { Patch } from '../patches/patch-schema.ts'
import { failingStepOf } from '../report/failing-step.ts'
import type { RunStore } from '../store/types.ts'
import { decideSequential, type SequentialDecision } from './sequential.ts'
import { armStats } from './stats.ts'

/** The most trials an arm runs unless told (the budget: trials stop once the verdict is decided). @example verify(run, { fix: 'fix-1', k: DEFAULT_K }) */
export const DEFAULT_K = 20
/** The k of pass^k in a verification (or the budget, when smaller). @example PASS_K === 5 */
export const PASS_K = 5
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
  /** The budget: the most trials per arm; they stop as soon as the verdict is decided. Default 20. */
  k?: number
  /** Past good runs the patch must not break. Default `auto` with a store, `none` without. */
  regress?: RegressOption
  /** Run unpatched controls beside the patched forks. Default true. */
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
  /** The most forks the budget allows: a verification decided early stops well short of it. */
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
  /** `patched-1`, `control-1`, `regress-<run id>-1`, `regress-control-<run id>-1`: unique in its plan. */
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
  /** The past good runs the patch is checked on, with and without it. */
  goodRuns: string[]
  /** Every trial the budget allows, round by round; `verify` stops as soon as the verdict is decided. */
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
 * Verifies a fix the way a careful engineer would, sequentially: forks of the run with the patch against
 * forks without it (the control: a fork goes live too, and a flaky agent passes some of those), and each
 * past good run re-run with and without the patch, in rounds, until the verdict is decided at the error
 * rates or the budget (`k` trials an arm, `maxCostUsd`) runs out (`decideSequential`: testing by betting,
 * valid however early the trials stop). Each fork is judged by the run's oracles (`pass`, `fail`), or
 * `errored` when it could not be judged: a 429 or 5xx from the provider that the agent did not get past,
 * or a divergence before the fork step. Errored trials never count as failures. Wilson 95 % intervals and
 * pass^k are reported beside each pass rate. A round runs the next pair (patched, control) of the arms
 * while they are undecided (`concurrency` pairs at once), then the next pair of each undecided past good
 * run, one fork at a time.
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
  // By the plan's index: overlapping forks finish in any order, the verification lists them in the plan's
  // (which is also the order the sequential rule pairs them in).
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
  const overBudget = (): boolean => {
    if (options.maxCostUsd !== undefined && costUsd >= options.maxCostUsd) stopped = 'max-cost'
    return stopped !== null
  }
  const lane = async (queue: TrialSpec[]): Promise<void> => {
    for (let spec = queue.shift(); spec && !overBudget(); spec = queue.shift()) await runOne(spec)
  }
  // Rounds: each takes the next pairs of the arms that are still open, runs them, and asks the sequential
  // rule again. The forks of the verified run (patched and control) may overlap, up to `concurrency`
  // pairs a round: they share one interceptor (same hosts) and each has its own Session. Past good runs,
  // which may call other hosts, run one fork at a time after them.
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 1))
  const ran = new Set<string>()
  const sofar = () => results.filter((t): t is Trial => t !== undefined)
  for (;;) {
    const round = nextRound(plan, ran, sofar(), { arms: concurrency, goodRuns: 1 })
    if (round.done) {
      if (round.decided && ran.size < plan.trials.length) stopped = 'decided'
      break
    }
    if (overBudget()) break
    for (const spec of round.specs) ran.add(spec.id)
    const arms = round.specs.filter((t) => t.arm === 'patched' || t.arm === 'control')
    const goods = round.specs.filter((t) => t.arm === 'regress' || t.arm === 'regress-control')
    await Promise.all(Array.from({ length: Math.min(concurrency, arms.length) }, () => lane(arms)))
    await lane(goods)
    if (stopped) break
  }
  const trials = sofar()
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
 * the past good runs, and lists every trial the budget allows, round by round: `patched-1`, `control-1`,
 * then for each past good run `regress-<id>-1` (with the patch) and `regress-control-<id>-1` (without),
 * forked at its first model call so all of it runs with the patch; then round 2, and so on to k.
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
  const goods = regressRuns(run, options).flatMap((good) => {
    const first = good.steps.find((s) => s.type === 'llm')
    return first ? [{ id: good.id, atStep: first.index }] : []
  })
  // Round-major: the i-th pair of every arm before any (i+1)-th, so that a verification stopped anywhere
  // (decided, or at the cost stop) has run its arms alike, and pairs are formed in this order.
  const trials: TrialSpec[] = []
  for (let i = 1; i <= k; i++) {
    trials.push({ id: `patched-${i}`, arm: 'patched', from: run.id, atStep, patch })
    if (control) trials.push({ id: `control-${i}`, arm: 'control', from: run.id, atStep, patch: null })
    for (const good of goods) {
      trials.push({
        id: `regress-${good.id}-${i}`,
        arm: 'regress',
        from: good.id,
        atStep: good.atStep,
        patch,
      })
      trials.push({
        id: `regress-control-${good.id}-${i}`,
        arm: 'regress-control',
        from: good.id,
        atStep: good.atStep,
        patch: null,
      })
    }
  }
  return { runId: run.id, fix, patch, k, atStep, control, goodRuns: goods.map((g) => g.id), trials }
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
  plan: Pick<VerifyPlan, 'k' | 'atStep' | 'control'> & { goodRuns?: readonly string[] },
  trials: readonly Trial[],
  extra: {
    costUsd?: number
    stopped?: Verification['stopped']
    createdAt?: string
    /** The trials were a fixed plan (no early stop): the verdict is final whatever the budget left. */
    fixedK?: boolean
  } = {},
): Verification {
  const of = (arm: Trial['arm']) => trials.filter((t) => t.arm === arm).map((t) => t.outcome)
  // pass^k at the budget would be n/a for every verification that stopped early: 5 runs in a row is
  // what a user who runs the agent a few times sees.
  const passK = Math.min(plan.k, PASS_K)
  const patched = armStats(of('patched'), passK)
  const control = plan.control ? armStats(of('control'), passK) : null
  const final = extra.stopped === 'max-cost' || extra.fixedK === true
  const decision = decideTrials(plan, trials, { final })
  const costUsd = extra.costUsd ?? trials.reduce((sum, t) => sum + (t.costUsd ?? 0), 0)
  return {
    verdict: decision.verdict,
    reason: extra.stopped === 'max-cost' ? `${decision.reason} (stopped at the cost limit)` : decision.reason,
    k: plan.k,
    passK,
    atStep: plan.atStep,
    patched,
    control,
    trials: [...trials],
    costUsd,
    stopped: extra.stopped ?? null,
    evidence: decision.evidence,
    ...(extra.fixedK && { fixedK: true }),
    createdAt: extra.createdAt ?? new Date().toISOString(),
  }
}

/**
 * The sequential rule (`decideSequential`) over a plan's trials so far, grouped by arm in the order
 * given (the plan's), the past good runs by the run they were forked from.
 *
 * @example
 * decideTrials(plan, trials, {}).done // true once more trials cannot change the verdict
 */
export function decideTrials(
  plan: Pick<VerifyPlan, 'k' | 'control'> & { goodRuns?: readonly string[] },
  trials: readonly Trial[],
  options: { final?: boolean },
): SequentialDecision {
  const of = (arm: Trial['arm'], from?: string) =>
    trials.filter((t) => t.arm === arm && (from === undefined || t.from === from)).map((t) => t.outcome)
  const ids = [
    ...new Set([
      ...(plan.goodRuns ?? []),
      ...trials.filter((t) => t.arm === 'regress' || t.arm === 'regress-control').map((t) => t.from),
    ]),
  ]
  return decideSequential({
    k: plan.k,
    patched: of('patched'),
    control: plan.control ? of('control') : null,
    goodRuns: ids.map((id) => ({ id, patched: of('regress', id), unpatched: of('regress-control', id) })),
    ...(options.final && { final: true }),
  })
}

/**
 * The next round of a sequential verification: the next `pairs.arms` pairs of the patched and control
 * arms while they are undecided, and the next `pairs.goodRuns` pairs of each undecided past good run,
 * taken in the plan's order from the trials not yet run (`ran`: their spec ids). `done` (with no spec)
 * once the trials so far decide the verdict, or the plan is spent.
 *
 * @example
 * const round = nextRound(plan, ran, trials, { arms: 5, goodRuns: 5 })
 * if (!round.done) await runAll(round.specs)
 */
export function nextRound(
  plan: VerifyPlan,
  ran: ReadonlySet<string>,
  trials: readonly Trial[],
  pairs: { arms: number; goodRuns: number },
): { done: boolean; decided: boolean; specs: TrialSpec[] } {
  const decision = decideTrials(plan, trials, {})
  const left = plan.trials.filter((t) => !ran.has(t.id))
  const take = (inGroup: (t: TrialSpec) => boolean, n: number, width: number) =>
    left.filter(inGroup).slice(0, n * width)
  const specs = decision.done
    ? []
    : [
        ...(decision.armsOpen
          ? take((t) => t.arm === 'patched' || t.arm === 'control', pairs.arms, plan.control ? 2 : 1)
          : []),
        ...decision.openGoodRuns.flatMap((id) =>
          take(
            (t) => t.from === id && (t.arm === 'regress' || t.arm === 'regress-control'),
            pairs.goodRuns,
            2,
          ),
        ),
      ]
  return { done: specs.length === 0, decided: decision.decided, specs }
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
