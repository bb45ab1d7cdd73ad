import type { z } from 'zod'
import type { ValidationIssue } from '../errors.ts'
import { toValidationIssues } from './validation-issues.ts'

/**
 * Turns zod's issues on a cassette into crashlab's `ValidationIssue`s. An unknown key is named at its
 * own path, because "fix the named fields" is only actionable when the field is named.
 *
 * @example
 * const result = CassetteSchema.safeParse(doc)
 * if (!result.success) console.log(formatIssues(cassetteIssues(result.error.issues)))
 */
export function cassetteIssues(issues: readonly z.core.$ZodIssue[]): ValidationIssue[] {
  return toValidationIssues(issues, {
    unknownKey: (key) =>
      `unknown field ${JSON.stringify(key)}: this version of the cassette format has no such field; keep your own data under run.metadata`,
  })
}
