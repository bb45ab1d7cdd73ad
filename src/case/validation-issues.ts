import type { z } from 'zod'
import type { ValidationIssue } from '../errors.ts'
import { clipText } from './internal/clip-text.ts'

/**
 * Paths in the notation of the AgentCase layered diff: `$`, `.key` (or `['key']` when the key is not an
 * identifier), `[i]`. Cassette and AgentCase errors use the same notation, so a user sees one kind of
 * path whichever file is wrong.
 */
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/

/**
 * Renders path segments as people read them in messages.
 *
 * @example
 * jsonPath(['run', 'steps', 3, 'type']) // '$.run.steps[3].type'
 * jsonPath(['headers', 'x-request-id']) // "$.headers['x-request-id']"
 */
export function jsonPath(segments: readonly PropertyKey[]): string {
  let out = '$'
  for (const seg of segments) {
    if (typeof seg === 'number') out += `[${seg}]`
    else {
      // A key of a million characters is still one field: quote its start, never all of it.
      const key = clipText(String(seg), MAX_KEY_CHARS)
      out += IDENTIFIER.test(key) ? `.${key}` : `['${key.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}']`
    }
  }
  return out
}

/** The longest key a path spells out. */
const MAX_KEY_CHARS = 60

export interface ToValidationIssuesOptions {
  /** The message for a key the strict schema does not know; it should say where such data can go. */
  unknownKey: (key: string) => string
}

/**
 * Turns zod issues into crashlab's `{ code, path, message }` list, in document order. An unknown-keys
 * issue becomes one issue per key, pointing at the key itself, because that is the line a user edits.
 *
 * @example
 * const result = CassetteSchema.safeParse(doc)
 * if (!result.success) formatIssues(toValidationIssues(result.error.issues, { unknownKey: (k) => `unknown field ${k}` }))
 */
export function toValidationIssues(
  issues: readonly z.core.$ZodIssue[],
  options: ToValidationIssuesOptions,
): ValidationIssue[] {
  const out: ValidationIssue[] = []
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        out.push({
          code: issue.code,
          path: jsonPath([...issue.path, key]),
          message: options.unknownKey(clipText(key, MAX_KEY_CHARS)),
        })
      }
      continue
    }
    out.push({ code: issue.code, path: jsonPath(issue.path), message: describe(issue) })
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
