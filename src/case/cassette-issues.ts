import type { z } from 'zod'
import type { ValidationIssue } from '../errors.ts'

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/

/**
 * Renders a path as people read it in messages: `$.run.steps[3].type`, with keys that are not
 * identifiers quoted (`$.run.steps[0].request.wire.headers["content-type"]`).
 *
 * @example
 * jsonPath(['run', 'steps', 3, 'type']) // '$.run.steps[3].type'
 * jsonPath(['headers', 'x-request-id']) // '$.headers["x-request-id"]'
 */
export function jsonPath(segments: readonly PropertyKey[]): string {
  let out = '$'
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`
    else if (typeof s === 'string' && IDENTIFIER.test(s)) out += `.${s}`
    else out += `[${JSON.stringify(String(s))}]`
  }
  return out
}

/**
 * Turns zod's issues into crashlab's `ValidationIssue`s, in document order as zod reports them.
 * An unknown key becomes one issue per key at the key's own path, because "fix the named fields" is
 * only actionable when the field is named.
 *
 * @example
 * const result = CassetteSchema.safeParse(doc)
 * if (!result.success) console.log(formatIssues(toValidationIssues(result.error.issues)))
 */
export function toValidationIssues(issues: readonly z.core.$ZodIssue[]): ValidationIssue[] {
  const out: ValidationIssue[] = []
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        out.push({
          code: issue.code,
          path: jsonPath([...issue.path, key]),
          message: `unknown field ${JSON.stringify(key)}: this version of the format has no such field`,
        })
      }
      continue
    }
    out.push({ code: issue.code, path: jsonPath(issue.path), message: issue.message })
  }
  return out
}
