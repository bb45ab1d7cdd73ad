import type { Run } from '../case/schema/run.ts'
import type { Session } from '../engine/session.ts'
import type { CassetteAction } from './types.ts'

/**
 * The cassette action of a test once its run ended. A replay that left its recording (it diverged, or
 * stopped short of it; only a Session opened with `onDivergence: 'record'` can: mode `diverged` and a
 * fork) became a recording: `record`. Every other action stays what the plan said.
 *
 * @example
 * await session.finish({ output })
 * state.action = actionAfterRun(state.action, session) // 'record' when a diverged replay re-recorded
 */
export function actionAfterRun(action: CassetteAction, session: Pick<Session, 'divergedAt'>): CassetteAction {
  return action === 'replay' && session.divergedAt !== undefined ? 'record' : action
}

/**
 * Whether the test's cassette is written when it ends: when it recorded (`actionAfterRun`) and the run
 * has steps (a test that called nothing leaves no cassette).
 *
 * @example
 * if (shouldWriteCassette(state.action, run)) writeCassette(state.cassettePath, run, { redactor })
 */
export function shouldWriteCassette(action: CassetteAction, run: Pick<Run, 'steps'>): boolean {
  return action === 'record' && run.steps.length > 0
}
