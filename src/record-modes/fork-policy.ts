import type { Run } from '../case/schema/run.ts'
import type { SessionHooks } from '../engine/types.ts'
import type { CommonSessionOptions, RecordPlan } from './types.ts'

/**
 * The run one test replays instead of its own cassette (`crashlab replay <id>` of a test), and for
 * `crashlab fork <id>` where it forks.
 *
 * @example
 * const override: TestOverride = { run: loadCassette(file).run, path: file, fork: { at: 2, onRequest } }
 */
export interface TestOverride {
  /** The run to replay. */
  run: Run
  /** The file it was read from: the test's cassette path for this run. */
  path: string
  /**
   * Forks the run at step `at` (`SessionOptions.forkAt`): steps before it replay strictly, the rest go
   * live, each request through `onRequest` (the fork's patch or base URL, `forkRequestHook`).
   */
  fork?: { at: number; onRequest: NonNullable<SessionHooks['onRequest']> }
}

/**
 * The fork policy: how the one test that `crashlab replay <id>` or `crashlab fork <id>` targets runs,
 * whatever the record mode (except `off` and `live()` tests, which stay live). It replays the given run
 * instead of its own cassette; a fork replays it up to the fork step and goes live from there, its
 * live requests through the fork's hook. It never touches the test's own cassette: when a fork went
 * live, `actionAfterRun` makes it a recording, written to the given run's file, which the command reads
 * back.
 *
 * @example
 * const plan = forkPolicy.open({ run, path: file, fork: { at: 2, onRequest: forkRequestHook({ patch }) } }, common)
 * plan.session.forkAt // 2
 */
export const forkPolicy = {
  summary: 'replays a given run instead of the cassette, optionally forked at a step',
  open(override: TestOverride, common: CommonSessionOptions): RecordPlan {
    const fork = override.fork
    return {
      action: 'replay',
      cassettePath: override.path,
      cassetteMissing: false,
      session: {
        mode: 'replay',
        recorded: override.run,
        ...common,
        ...(fork && { forkAt: fork.at, hooks: { ...common.hooks, onRequest: fork.onRequest } }),
        cassettePath: override.path,
      },
    }
  },
} as const
