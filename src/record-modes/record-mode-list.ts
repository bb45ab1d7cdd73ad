import type { RecordMode } from './types.ts'

/**
 * Every record mode, in the order messages list them.
 *
 * @example
 * RECORD_MODES.join(', ') // 'replay, missing, all, diverged, off'
 */
export const RECORD_MODES: readonly RecordMode[] = ['replay', 'missing', 'all', 'diverged', 'off']

/**
 * True when `value` is a record mode's exact name (`parseMode` also reads `1`, `true` and other cases).
 *
 * @example
 * isRecordMode('missing') // true
 * isRecordMode('often')   // false
 */
export function isRecordMode(value: string): value is RecordMode {
  return (RECORD_MODES as readonly string[]).includes(value)
}
