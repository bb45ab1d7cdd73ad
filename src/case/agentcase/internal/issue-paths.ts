import type { z } from 'zod'
import type { ValidationIssue } from '../../../errors.ts'

/**
 * Paths in the notation of the reference's layered diff: `$`, `.key` (or `['key']` when the key is not
 * an identifier), `[i]`. Users see the same path in a crashlab error and in a ReproAgent diff.
 */

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/

/**
 * Renders path segments as `$.events[3].payload`.
 *
 * @example
 * dollarPath(['events', 3, 'payload']) // '$.events[3].payload'
 * dollarPath(['extensions', 'dev.crashlab']) // "$.extensions['dev.crashlab']"
 */
export function dollarPath(segments: readonly PropertyKey[]): string {
  let out = '$'
  for (const seg of segments) {
    if (typeof seg === 'number') out += `[${seg}]`
    else {
      const key = String(seg)
      out += IDENTIFIER.test(key) ? `.${key}` : `['${key.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}']`
    }
  }
  return out
}

/**
 * Turns zod issues into crashlab's `{ code, path, message }` list, in document order. An unknown-keys
 * issue becomes one issue per key, pointing at the key itself, because that is the line a user edits.
 *
 * @example
 * zodIssuesToValidationIssues(AgentCaseSchema.safeParse(x).error!.issues)
 */
export function zodIssuesToValidationIssues(issues: readonly z.core.$ZodIssue[]): ValidationIssue[] {
  const out: ValidationIssue[] = []
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        out.push({
          code: 'unrecognized_keys',
          path: dollarPath([...issue.path, key]),
          message: `unknown key '${key}': AgentCase objects are strict; put your own data under an "extensions" object`,
        })
      }
      continue
    }
    out.push({ code: issue.code, path: dollarPath(issue.path), message: describe(issue) })
  }
  return out
}

function describe(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_value') {
    return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`
  }
  // zod's messages are good ("Invalid input: expected string, received number"); keep them, lower-cased
  // at the start so they read well after "✖".
  return issue.message.charAt(0).toLowerCase() + issue.message.slice(1)
}
