import { allMode } from './all-mode.ts'
import { loadRecorded } from './internal/plans.ts'
import type { RecordModeStrategy } from './types.ts'

/**
 * `diverged`: a test with a cassette replays it up to its first model, http or `tool()` call that
 * matches no unused recorded step, and records live from there (`onDivergence: 'record'`), keeping the
 * replayed steps as they were. When it ends, a run that left its recording (it diverged, or stopped
 * short of it) becomes a recording and its cassette is written; a run that matched it fully writes
 * nothing. A test without a cassette is recorded, as in `missing`.
 *
 * @example
 * const plan = divergedMode.open({ path, exists: true, load }, common)
 * plan.action                // 'replay', until `actionAfterRun` says otherwise
 * plan.session.onDivergence  // 'record'
 */
export const divergedMode: RecordModeStrategy = {
  mode: 'diverged',
  summary: 'replays each cassette up to its first divergence and re-records only from there',
  open(cassette, common) {
    if (cassette.exists !== true) return allMode.open(cassette, common)
    return {
      action: 'replay',
      cassettePath: cassette.path,
      cassetteMissing: false,
      session: {
        mode: 'replay',
        onDivergence: 'record',
        recorded: loadRecorded(cassette),
        ...common,
        cassettePath: cassette.path,
      },
    }
  },
}
