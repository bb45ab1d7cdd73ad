import { CrashlabError } from '../../errors.ts'
import type { CompareOptions, DiffMode } from '../difference.ts'
import { compilePathPatterns, type PatternNode } from './path-pattern.ts'

/**
 * Checks `compare`'s options once, before any walking, so that a bad option fails loudly with the
 * option's name instead of silently comparing with a meaningless setting (a negative tolerance would
 * make every non-integer number differ, NaN would make every comparison false).
 */

/**
 * The default `floatTolerance`, the reference's: tight enough for money, loose enough for a float that
 * went through another language's formatter.
 *
 * @example
 * compare(0.1 + 0.2, 0.3, { mode: 'normalized', floatTolerance: DEFAULT_FLOAT_TOLERANCE }).equal // true
 */
export const DEFAULT_FLOAT_TOLERANCE = 1e-9

const MODES: readonly DiffMode[] = ['exact', 'structural', 'normalized']

export interface ResolvedOptions {
  mode: DiffMode
  tolerance: number
  /** The compiled `ignoredPaths`: the walker's start states (empty when nothing is ignored). */
  ignored: readonly PatternNode[]
}

/**
 * Validates and compiles the options of `compare`.
 *
 * @example
 * resolveOptions({ mode: 'normalized' }) // { mode: 'normalized', tolerance: 1e-9, ignored: [] }
 * resolveOptions({ floatTolerance: -1 }) // throws E_DIFF_OPTIONS
 */
export function resolveOptions(options: CompareOptions = {}): ResolvedOptions {
  const mode = options.mode ?? 'exact'
  if (!MODES.includes(mode)) {
    throw new CrashlabError(
      'E_DIFF_OPTIONS',
      `unknown diff mode ${JSON.stringify(mode)}: use 'exact', 'structural' or 'normalized'.`,
    )
  }
  const tolerance = options.floatTolerance ?? DEFAULT_FLOAT_TOLERANCE
  if (typeof tolerance !== 'number' || Number.isNaN(tolerance) || tolerance < 0) {
    throw new CrashlabError(
      'E_DIFF_OPTIONS',
      `floatTolerance must be a number ≥ 0, got ${String(tolerance)}: it is the largest difference ` +
        `two numbers may have and still be equal in normalized mode (default ${DEFAULT_FLOAT_TOLERANCE}).`,
    )
  }
  const paths = options.ignoredPaths ?? []
  if (!Array.isArray(paths)) {
    throw new CrashlabError(
      'E_DIFF_OPTIONS',
      `ignoredPaths must be an array of path patterns such as ['$.events[*].event_id'].`,
    )
  }
  return { mode, tolerance, ignored: compilePathPatterns(paths) }
}
