import { createRun } from '../case/create-run.ts'
import { loadRecorded, replayPlan } from './internal/plans.ts'
import type { RecordModeStrategy } from './types.ts'

/**
 * `replay`: every test replays its cassette and never reaches the network; nothing is written. A test
 * without a cassette passes as long as it calls no model; its first model, http or `tool()` call fails
 * it with `E_CASSETTE_MISSING`, naming the command that records it. The default under CI.
 *
 * @example
 * const plan = replayMode.open({ path, exists: false }, common)
 * plan.cassetteMissing // true: the Session replays an empty recording
 */
export const replayMode: RecordModeStrategy = {
  mode: 'replay',
  summary: 'replays every cassette, never the network; a test without one fails at its first call',
  open(cassette, common) {
    if (cassette.exists === true) return replayPlan(cassette, common, loadRecorded(cassette))
    // An empty recording: a test that never calls a model passes, the first call that does diverges,
    // and the test's finish turns that into the missing-cassette error.
    return replayPlan(cassette, common, createRun({ name: 'run' }), true)
  },
}
