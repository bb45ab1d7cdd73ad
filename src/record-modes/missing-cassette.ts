import { CrashlabError } from '../errors.ts'
import type { RecordMode } from './types.ts'

/**
 * The record command for a missing cassette: `--record=missing` records only what is missing.
 *
 * @example
 * RECORD_MISSING_COMMAND // 'npx crashlab vitest --record=missing'
 */
export const RECORD_MISSING_COMMAND = 'npx crashlab vitest --record=missing'

/**
 * The error of a test that called a model or a tool in replay mode with no cassette to replay
 * (`RecordPlan.cassetteMissing`), naming the command that records it.
 *
 * @example
 * throw missingCassetteError({ cassettePath, mode: 'replay' }, 'refund > clean refund', divergence)
 */
export function missingCassetteError(
  test: { cassettePath: string; mode: RecordMode },
  testName: string,
  cause?: unknown,
): CrashlabError {
  return new CrashlabError(
    'E_CASSETTE_MISSING',
    `test "${testName}" has no cassette at ${test.cassettePath}, and this run replays only ` +
      `(mode "${test.mode}": CI=true replays by default). Record it with \`${RECORD_MISSING_COMMAND}\` ` +
      'and commit the cassette.',
    { subject: test.cassettePath, cause },
  )
}
