import type { TrialOutcome, Verdict } from '../case/schema/run.ts'
import { type BetOptions, type BetState, bet, reachable } from './betting.ts'

/** The error rate of a VERIFIED verdict, and of a regression found: 5 %. @example DEFAULT_ALPHA === 0.05 */
export const DEFAULT_ALPHA = 0.05
/**
 * The loss of pass rate on a past good run that VERIFIED rules out: a fix is VERIFIED only once each
 * past good run is shown, at the error rate, to lose less than this much with the patch.
 * @example DEFAULT_TOLERANCE === 0.5
 */
export const DEFAULT_TOLERANCE = 0.5

/**
 * The trials of one past good run: re-run with the patch and without it, in the order they ran.
 *
 * @example
 * const good: GoodRunTrials = { id: '01J…', patched: ['pass', 'fail'], unpatched: ['pass', 'pass'] }
 */
export interface GoodRunTrials {
  id: string
  patched: readonly TrialOutcome[]
  unpatched: readonly TrialOutcome[]
}

/**
 * What the sequential rule is given: every arm's outcomes so far, in the order they ran, and the budget.
 *
 * @example
 * const input: SequentialInput = { k: 20, patched: ['pass'], control: ['fail'], goodRuns: [] }
 */
export interface SequentialInput {
  /** The budget: the most trials an arm may run. */
  k: number
  patched: readonly TrialOutcome[]
  /** Null with no controls: the failing run is the only one (a pass rate above one half is the bar). */
  control: readonly TrialOutcome[] | null
  goodRuns: readonly GoodRunTrials[]
  /** Default DEFAULT_ALPHA. */
  alpha?: number
  /** Default DEFAULT_TOLERANCE. */
  tolerance?: number
  /** No more trial will run (a cost stop, a fixed plan): an undecided verification gets its final verdict now. */
  final?: boolean
}

/** Where one part of a verification stands. */
export type PartState = 'open' | 'decided' | 'spent'

/**
 * The verdict so far, whether it is final, and which arms want more trials.
 *
 * @example
 * const d = decideSequential({ k: 20, patched, control, goodRuns: [] })
 * if (!d.done && d.armsOpen) runAnotherPair()
 */
export interface SequentialDecision {
  verdict: Verdict
  reason: string
  /** No further trial can change the verdict: it was decided, or the budget is spent. */
  done: boolean
  /** Decided at the error rate (rather than by the budget running out). */
  decided: boolean
  /** The patched and control arms want another pair. */
  armsOpen: boolean
  /** The past good runs that want another pair of trials (with and without the patch). */
  openGoodRuns: string[]
  /** The highest wealth of the bet that the patch beats the control (VERIFIED at 1/α). */
  evidence: number
}

const DIFF: BetOptions = { lower: -1, hope: 1 }

/**
 * The sequential verdict of a verification, by testing by betting (docs/verify.md):
 *
 * - arms: the patched and control trials are paired in the order they ran (errored trials left out) and
 *   the difference of each pair (+1, 0, -1) is bet on, once that the patch is better (VERIFIED when the
 *   wealth reaches 1/α) and once that it is worse (REJECTED at 1/α). Without controls, each patched trial
 *   is bet on against a pass rate of one half. When neither bet can reach 1/α within the budget, the
 *   verdict is drawn from the pass rates: LIKELY when the patched arm is ahead, REJECTED when not;
 * - each past good run: its trials without and with the patch are paired the same way, and bet on twice:
 *   that the patch lowers its pass rate (a regression: REJECTED at m/α for m good runs) and that it
 *   lowers it by less than the tolerance (the good run is cleared at 1/α);
 * - VERIFIED needs the arms' bet won and every good run cleared. So a patch no better than the control is
 *   VERIFIED with probability at most α, a patch that costs a good run the tolerance or more likewise,
 *   and a patch that harms no good run is REJECTED for a regression with probability at most α, at any
 *   point the trials stop.
 *
 * @example
 * decideSequential({ k: 20, patched: Array(5).fill('pass'), control: Array(5).fill('fail'), goodRuns: [] }).verdict // 'VERIFIED'
 */
export function decideSequential(input: SequentialInput): SequentialDecision {
  const alpha = input.alpha ?? DEFAULT_ALPHA
  const tolerance = input.tolerance ?? DEFAULT_TOLERANCE
  const threshold = 1 / alpha
  const final = input.final === true
  const arms = judgeArms(input, threshold, final)
  const regressThreshold = Math.max(1, input.goodRuns.length) / alpha
  const goods = input.goodRuns.map((g) => ({
    g,
    ...judgeGoodRun(g, input.k, tolerance, threshold, regressThreshold, final),
  }))
  const base = { evidence: arms.better.peak, armsOpen: false, openGoodRuns: [] as string[] }
  const regressed = goods.filter((x) => x.state === 'regressed')
  if (regressed.length > 0) {
    return {
      ...base,
      verdict: 'REJECTED',
      done: true,
      decided: true,
      reason: `the patch broke ${regressed.length} past good run${regressed.length === 1 ? '' : 's'}: ${regressed.map((x) => `${x.g.id} (${x.rates})`).join(', ')}`,
    }
  }
  const openGoods = goods.filter((x) => x.state === 'open').map((x) => x.g.id)
  if (arms.state === 'worse') {
    return { ...base, verdict: 'REJECTED', done: true, decided: true, reason: arms.reason }
  }
  if (arms.state === 'open') {
    return { ...base, ...arms.fallback, done: false, decided: false, armsOpen: true, openGoodRuns: openGoods }
  }
  if (arms.state === 'spent') return { ...base, ...arms.fallback, done: true, decided: false }
  // The arms' bet is won: the good runs decide.
  if (openGoods.length > 0) {
    return {
      ...base,
      verdict: 'LIKELY',
      reason: `${arms.reason}; past good runs not yet cleared: ${openGoods.join(', ')}`,
      done: false,
      decided: false,
      openGoodRuns: openGoods,
    }
  }
  const uncleared = goods.filter((x) => x.state !== 'cleared')
  if (uncleared.length > 0) {
    return {
      ...base,
      verdict: 'LIKELY',
      reason: `${arms.reason}, but the budget ran out before ${uncleared.map((x) => `${x.g.id} (${x.rates})`).join(', ')} was cleared of a regression of ${pct(tolerance)} or more: raise -k`,
      done: true,
      decided: false,
    }
  }
  const cleared =
    goods.length > 0 ? `; ${goods.length} past good run${goods.length === 1 ? '' : 's'} cleared` : ''
  return { ...base, verdict: 'VERIFIED', reason: `${arms.reason}${cleared}`, done: true, decided: true }
}

type ArmsJudgement = {
  state: 'better' | 'worse' | 'open' | 'spent'
  better: BetState
  reason: string
  fallback: { verdict: Verdict; reason: string }
}

function judgeArms(input: SequentialInput, threshold: number, final: boolean): ArmsJudgement {
  const { k, patched, control } = input
  const ys = control ? pairDifferences(patched, control) : usable(patched).map((x) => 2 * x - 1)
  const better = bet(ys, DIFF, threshold)
  const worse = bet(
    ys.map((y) => -y),
    DIFF,
    threshold,
  )
  const used = Math.max(patched.length, control?.length ?? 0)
  const remaining = Math.max(0, k - used)
  const rates = armsText(patched, control)
  const e = `e = ${round(better.peak)}`
  const noControl = control ? '' : ' (no control: against a pass rate of one half)'
  const firstCross = (s: BetState) => s.crossedAt ?? Number.POSITIVE_INFINITY
  if (better.crossedAt !== null && firstCross(better) <= firstCross(worse)) {
    return {
      state: 'better',
      better,
      reason: `${rates}: better at the 5 % level after ${better.crossedAt} ${control ? 'pairs' : 'trials'} (${e})${noControl}`,
      fallback: { verdict: 'VERIFIED', reason: '' },
    }
  }
  if (worse.crossedAt !== null) {
    return {
      state: 'worse',
      better,
      reason: `${rates}: the patch is worse${control ? ' than the control' : ' than one half'}, at the 5 % level after ${worse.crossedAt} ${control ? 'pairs' : 'trials'}`,
      fallback: { verdict: 'REJECTED', reason: '' },
    }
  }
  // A budget too small to ever reach 1/α is run whole (it can show a LIKELY, or a regression), not cut short.
  const tooSmall = !reachable(bet([], DIFF, threshold), k, 1, DIFF, threshold)
  const out = final || remaining === 0 || (!tooSmall && !reachable(better, remaining, 1, DIFF, threshold))
  const fallback = fallbackVerdict(
    input,
    rates,
    tooSmall ? `${e}; k = ${k} is too small to reach 1/α` : e,
    out,
    tooSmall || better.peak >= Math.sqrt(threshold),
  )
  return { state: out ? 'spent' : 'open', better, reason: fallback.reason, fallback }
}

/** The verdict when the bets are undecided: from the pass rates, as the budget left it. */
function fallbackVerdict(
  input: SequentialInput,
  rates: string,
  e: string,
  out: boolean,
  /** The bet got halfway to 1/α (on the log scale): under the null it does so with chance at most √α. */
  halfway: boolean,
): { verdict: Verdict; reason: string } {
  const { k, patched, control } = input
  const stats = (o: readonly TrialOutcome[]) => {
    const u = usable(o)
    return { n: u.length, passed: u.filter((x) => x === 1).length, errored: o.length - u.length }
  }
  const p = stats(patched)
  const c = control ? stats(control) : null
  const undecided = out ? `undecided within the budget of ${k} (${e})` : `undecided so far (${e})`
  if (out) {
    for (const [name, s, all] of [
      ['patched', p, patched],
      ['control', c, control],
    ] as const) {
      // Errors never count as failures, but an arm that mostly errored was not tested.
      const need = all ? Math.max(2, Math.ceil(all.length / 2)) : 0
      if (s && all && s.n < need) {
        return {
          verdict: 'INCONCLUSIVE',
          reason: `only ${s.n} of ${all.length} ${name} trials were usable (${s.errored} errored); ${need} are needed`,
        }
      }
    }
  }
  const pRate = p.n === 0 ? 0 : p.passed / p.n
  if (c) {
    const cRate = c.n === 0 ? 0 : c.passed / c.n
    if (pRate <= cRate)
      return { verdict: 'REJECTED', reason: `${rates}: no better than the control, ${undecided}` }
    if (!halfway) {
      return {
        verdict: 'INCONCLUSIVE',
        reason: `${rates}: ahead of the control by too little to tell, ${undecided}`,
      }
    }
    return { verdict: 'LIKELY', reason: `${rates}: ahead of the control but ${undecided}: raise -k` }
  }
  if (p.passed === 0) return { verdict: 'REJECTED', reason: `no patched trial passed (${p.n} failed)` }
  if (pRate >= 0.5 && halfway)
    return { verdict: 'LIKELY', reason: `${rates}, no control run, ${undecided}: raise -k or run controls` }
  return { verdict: 'INCONCLUSIVE', reason: `${rates}, no control run, ${undecided}` }
}

function judgeGoodRun(
  g: GoodRunTrials,
  k: number,
  tolerance: number,
  threshold: number,
  regressThreshold: number,
  final: boolean,
): { state: 'regressed' | 'cleared' | 'open' | 'spent'; rates: string } {
  // +1: the good run passed without the patch and failed with it.
  const ys = pairDifferences(g.unpatched, g.patched)
  const rates = `${passText(g.patched)} with the patch, ${passText(g.unpatched)} without`
  const regression = bet(ys, DIFF, regressThreshold)
  const clearOptions: BetOptions = { lower: tolerance - 1, hope: tolerance }
  const cleared = bet(
    ys.map((y) => tolerance - y),
    clearOptions,
    threshold,
  )
  if (regression.crossedAt !== null) return { state: 'regressed', rates }
  if (cleared.crossedAt !== null) return { state: 'cleared', rates }
  const remaining = Math.max(0, k - Math.max(g.patched.length, g.unpatched.length))
  const tooSmall = !reachable(bet([], clearOptions, threshold), k, tolerance + 1, clearOptions, threshold)
  const out =
    final ||
    remaining === 0 ||
    (!tooSmall &&
      !reachable(cleared, remaining, tolerance + 1, clearOptions, threshold) &&
      !reachable(regression, remaining, 1, DIFF, regressThreshold))
  return { state: out ? 'spent' : 'open', rates }
}

/** 1 for a pass, 0 for a failure; errored trials are left out. */
function usable(outcomes: readonly TrialOutcome[]): number[] {
  return outcomes.flatMap((o) => (o === 'pass' ? [1] : o === 'fail' ? [0] : []))
}

/** a − b, pair by pair, over the usable trials of each, in the order they ran. */
function pairDifferences(a: readonly TrialOutcome[], b: readonly TrialOutcome[]): number[] {
  const ua = usable(a)
  const ub = usable(b)
  return ua.slice(0, Math.min(ua.length, ub.length)).map((x, i) => x - (ub[i] as number))
}

function passText(outcomes: readonly TrialOutcome[]): string {
  const u = usable(outcomes)
  return `${u.filter((x) => x === 1).length}/${u.length}`
}

function armsText(patched: readonly TrialOutcome[], control: readonly TrialOutcome[] | null): string {
  return `patched ${passText(patched)}${control ? ` against control ${passText(control)}` : ''}`
}

const pct = (x: number): string => `${Math.round(x * 100)} %`
const round = (x: number): string => (x >= 100 ? x.toFixed(0) : x.toPrecision(2))
