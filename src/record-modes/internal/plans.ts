import { loadCassette } from '../../case/cassette-load.ts'
import type { Run } from '../../case/schema/run.ts'
import type { CassetteInputs, CommonSessionOptions, RecordPlan } from '../types.ts'

/** The recorded run of an existing cassette, through the caller's loader when it gave one. */
export function loadRecorded(cassette: CassetteInputs): Run {
  if (cassette.load) return cassette.load()
  if (cassette.path === undefined) {
    throw new TypeError('[crashlab] a replaying record mode needs the cassette path or a loader for it')
  }
  return loadCassette(cassette.path).run
}

/** A test that records: a `record` Session, the cassette written when the test ends. */
export function recordPlan(cassette: CassetteInputs, common: CommonSessionOptions): RecordPlan {
  return {
    action: 'record',
    cassettePath: cassette.path,
    cassetteMissing: false,
    session: { mode: 'record', ...common, cassettePath: cassette.path },
  }
}

/** A test that replays `recorded` strictly: a divergence fails it, and nothing is written. */
export function replayPlan(
  cassette: CassetteInputs,
  common: CommonSessionOptions,
  recorded: Run,
  cassetteMissing = false,
): RecordPlan {
  return {
    action: 'replay',
    cassettePath: cassette.path,
    cassetteMissing,
    session: { mode: 'replay', recorded, ...common, cassettePath: cassette.path },
  }
}
