import type { RecordModeStrategy } from './types.ts'

/**
 * `off`: every test calls the live provider and no cassette is read or written (cassette action
 * `passthrough`). The run is still captured in memory by a `record` Session, so oracles, runtime
 * checks and assertions work on it; only the writing is left out. A `live()` test gets this plan in
 * every mode. (No record mode opens a `passthrough` Session: that would capture nothing.)
 *
 * @example
 * const plan = offMode.open({ path }, common)
 * plan.action        // 'passthrough': the cassette is left alone
 * plan.session.mode  // 'record': the run is captured, in memory only
 */
export const offMode: RecordModeStrategy = {
  mode: 'off',
  summary: 'calls the live provider and reads or writes no cassette',
  open(cassette, common) {
    // The Session gets no cassette path: it neither replays one nor names one in its messages.
    return {
      action: 'passthrough',
      cassettePath: cassette.path,
      cassetteMissing: false,
      session: { mode: 'record', ...common },
    }
  },
}
