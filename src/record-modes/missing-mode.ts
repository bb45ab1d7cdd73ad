import { allMode } from './all-mode.ts'
import { replayMode } from './replay-mode.ts'
import type { RecordModeStrategy } from './types.ts'

/**
 * `missing`: a test with a cassette replays it (as in `replay`), a test without one is recorded live and
 * its cassette written (as in `all`). The default outside CI.
 *
 * @example
 * missingMode.open({ path, exists: true, load }, common).action // 'replay'
 * missingMode.open({ path, exists: false }, common).action      // 'record'
 */
export const missingMode: RecordModeStrategy = {
  mode: 'missing',
  summary: 'replays the tests that have a cassette, records the others',
  open(cassette, common) {
    return cassette.exists === true ? replayMode.open(cassette, common) : allMode.open(cassette, common)
  },
}
