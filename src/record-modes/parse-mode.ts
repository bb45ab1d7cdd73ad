import { CrashlabError } from '../errors.ts'
import { isRecordMode, RECORD_MODES } from './record-mode-list.ts'
import type { RecordMode } from './types.ts'

/**
 * Reads a mode name; `1`, `true` and an empty `--record` mean `all`. An unknown name is an
 * `E_RECORD_MODE` error naming `from` (where the value came from) and the modes.
 *
 * @example
 * parseMode('missing', 'CRASHLAB_RECORD') // 'missing'
 * parseMode('1', 'CRASHLAB_RECORD')       // 'all'
 */
export function parseMode(value: string, from: string): RecordMode {
  const v = value.trim().toLowerCase()
  if (v === '1' || v === 'true' || v === '') return 'all'
  if (isRecordMode(v)) return v
  throw new CrashlabError(
    'E_RECORD_MODE',
    `${from} is "${value}", which is not a record mode: use one of ${RECORD_MODES.join(', ')} ` +
      '(for example `npx crashlab vitest --record=missing`).',
    { subject: from },
  )
}
