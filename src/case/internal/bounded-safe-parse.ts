import type { z } from 'zod'

/**
 * What `boundedSafeParse` returns when the validator itself gave up: zod gathers the issues of a
 * subtree with `push(...issues)`, which throws a `RangeError` once a subtree has some 100,000 issues.
 * The bounds checked before the schema (`findBoundsProblem`) keep realistic and most hostile documents
 * far from that; this is the net under them, so that the error stays typed whatever the input.
 */
export const TOO_MANY_ISSUES = Symbol('too many issues')

/**
 * `schema.safeParse(value)`, except that a stack overflow inside the validator is returned as
 * `TOO_MANY_ISSUES` instead of thrown.
 *
 * @example
 * const result = boundedSafeParse(CassetteSchema, doc)
 * if (result === TOO_MANY_ISSUES) throw new CrashlabError('E_CASSETTE_INVALID', '… too many problems to list …')
 */
export function boundedSafeParse<S extends z.ZodType>(
  schema: S,
  value: unknown,
): z.ZodSafeParseResult<z.output<S>> | typeof TOO_MANY_ISSUES {
  try {
    return schema.safeParse(value)
  } catch (error) {
    if (error instanceof RangeError) return TOO_MANY_ISSUES
    throw error
  }
}
