import { allMode } from './all-mode.ts'
import { divergedMode } from './diverged-mode.ts'
import { missingMode } from './missing-mode.ts'
import { offMode } from './off-mode.ts'
import { replayMode } from './replay-mode.ts'
import type { RecordMode, RecordModeStrategy } from './types.ts'

/**
 * The strategy of every record mode, by name: what `crashlab vitest --record=<mode>` and the plugin's
 * `mode` option select.
 *
 * @example
 * RECORD_MODE_STRATEGIES.missing.open({ path, exists: false }, common).action // 'record'
 */
export const RECORD_MODE_STRATEGIES: Readonly<Record<RecordMode, RecordModeStrategy>> = {
  replay: replayMode,
  missing: missingMode,
  all: allMode,
  diverged: divergedMode,
  off: offMode,
}

/**
 * The strategy of `mode`.
 *
 * @example
 * strategyFor('diverged').summary
 */
export function strategyFor(mode: RecordMode): RecordModeStrategy {
  return RECORD_MODE_STRATEGIES[mode]
}
