import { CrashlabError } from '../errors.ts'
import { canonicalStringify } from './canonical-json.ts'
import type { Cassette } from './schema/cassette.ts'

/**
 * The canonical text of a cassette: keys sorted by Unicode code point at every level, two-space indent,
 * a trailing newline. The same cassette always gives the same bytes, whatever order its objects were
 * built in, so a re-recorded cassette reads as a small diff in review. Numbers are written as
 * JavaScript writes them (`1.0` is `1`, `1e21` stays `1e+21`, `-0` is `0`).
 *
 * It does not validate: `writeCassette` does, before calling it. A value JSON cannot carry (NaN, a
 * bigint, a cycle) is an `E_CASSETTE_INVALID` error naming where it is, not a silent `null`; so is
 * nesting too deep for the call stack.
 *
 * @example
 * const text = serializeCassette(cassette)
 * text.endsWith('}\n') // true
 */
export function serializeCassette(cassette: Cassette): string {
  try {
    return `${canonicalStringify(cassette, { indent: 2 })}\n`
  } catch (cause) {
    // A RangeError is the call stack running out: a value nested tens of thousands of levels deep.
    if (cause instanceof RangeError) {
      throw new CrashlabError(
        'E_CASSETTE_INVALID',
        'cannot serialize the cassette: it is nested too deeply.',
        { cause },
      )
    }
    if (!(cause instanceof TypeError)) throw cause
    throw new CrashlabError('E_CASSETTE_INVALID', `cannot serialize the cassette: ${cause.message}.`, {
      cause,
    })
  }
}
