import type { Diagnosis, FailureLabel } from '../../case/schema/run.ts'
import { labelCorrect, type Share, share, stepCorrect } from '../score.ts'
import type { GroundTruth } from '../types.ts'
import { type HeldoutFaultKind, isRecoveredKind } from './types.ts'

/**
 * One held-out episode as a diagnoser saw it: the truth, and what it said (null when its call failed,
 * which counts as wrong everywhere, and as a false alarm on a run with nothing wrong).
 *
 * @example
 * const scored: HeldoutScored = { fault: 'clean', truth, diagnosis: heuristicDiagnosis(run) }
 */
export interface HeldoutScored {
  fault: HeldoutFaultKind
  truth: GroundTruth
  diagnosis: Pick<Diagnosis, 'label' | 'failingStep'> | null
}

/**
 * A diagnoser's figures on the held-out set, each a point estimate with its Wilson 95 % interval.
 *
 * @example
 * const { label, exactStep, falseAlarms } = scoreHeldout(scored)
 */
export interface HeldoutScore {
  /** Every episode: the diagnosed label is the true one. */
  label: Share
  /** Per true label: how many of its episodes got that label (recall). */
  recall: Partial<Record<FailureLabel, Share>>
  /** Failing episodes: the diagnosed step is exactly the culprit step. */
  exactStep: Share
  /** Failing episodes: the diagnosed step is one of the culprit action's steps (the model call or its tool step). */
  actionStep: Share
  /** Runs with nothing wrong that the diagnoser called a failure: clean runs, and recovered runs. */
  falseAlarms: { clean: Share; recovered: Share }
  /** Per fault kind: label and step (exact culprit; no step for a run with nothing wrong). */
  perKind: Array<{ fault: HeldoutFaultKind; label: Share; step: Share }>
}

/**
 * Scores a diagnoser on held-out episodes: label accuracy, recall per true label, the exact culprit step
 * and the culprit action's steps on failing runs, false alarms on clean and on recovered runs, and each
 * fault kind's row.
 *
 * @example
 * scoreHeldout(scored).falseAlarms.recovered.rate // 0.4
 */
export function scoreHeldout(items: readonly HeldoutScored[]): HeldoutScore {
  const count = (of: readonly HeldoutScored[], ok: (s: HeldoutScored) => boolean) =>
    share(of.filter(ok).length, of.length)
  const asDiagnosis = (s: HeldoutScored) => s.diagnosis as Diagnosis | null
  const failing = items.filter((s) => s.truth.label !== 'NO_FAILURE')
  const alarm = (s: HeldoutScored) => s.diagnosis === null || s.diagnosis.label !== 'NO_FAILURE'
  const exact = (s: HeldoutScored) =>
    s.truth.failingStep === null
      ? s.diagnosis !== null && s.diagnosis.failingStep === null
      : s.diagnosis?.failingStep === s.truth.failingStep
  const recall: HeldoutScore['recall'] = {}
  for (const label of [...new Set(items.map((s) => s.truth.label))].sort()) {
    recall[label] = count(
      items.filter((s) => s.truth.label === label),
      (s) => labelCorrect(s.truth, asDiagnosis(s)),
    )
  }
  const kinds = [...new Set(items.map((s) => s.fault))]
  return {
    label: count(items, (s) => labelCorrect(s.truth, asDiagnosis(s))),
    recall,
    exactStep: count(failing, exact),
    actionStep: count(failing, (s) => stepCorrect(s.truth, asDiagnosis(s))),
    falseAlarms: {
      clean: count(
        items.filter((s) => s.fault === 'clean'),
        alarm,
      ),
      recovered: count(
        items.filter((s) => isRecoveredKind(s.fault)),
        alarm,
      ),
    },
    perKind: kinds.map((fault) => {
      const of = items.filter((s) => s.fault === fault)
      return {
        fault,
        label: count(of, (s) => labelCorrect(s.truth, asDiagnosis(s))),
        step: count(of, exact),
      }
    }),
  }
}
