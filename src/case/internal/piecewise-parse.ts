import type { z } from 'zod'
import { boundedSafeParse, TOO_MANY_ISSUES } from './bounded-safe-parse.ts'

/**
 * One long array of a document validated element by element: `path` leads to it through objects,
 * `element` is the schema of its items.
 */
export interface PiecewiseArray {
  path: readonly string[]
  element: z.ZodType
  /** Arrays shorter than this are validated with the whole document, as usual. */
  minLength: number
}

/** The result of `piecewiseSafeParse`: zod's data, or its issues (at most about `maxIssues`). */
export type PiecewiseResult<T> =
  | { success: true; data: T }
  | { success: false; issues: z.core.$ZodIssue[]; truncated: boolean }

export interface PiecewiseOptions {
  /** Stop validating elements once this many issues are known. */
  maxIssues: number
  /** Cross-element rules the document's schema checks on the array (they see an empty array here). */
  extraIssues?: (items: readonly unknown[]) => Array<{ path: PropertyKey[]; message: string }>
}

/**
 * `schema.safeParse(value)` with a bound on the work an invalid document causes. A few MB of `{}`
 * items would otherwise give zod a million issues to build (seconds and a GB of memory) before the
 * first twenty are shown. A long array is checked one item at a time, stopping at `maxIssues`; the
 * rest of the document is checked with the array emptied, and the items parsed on their own are put
 * back into zod's output, so a valid document gives exactly what `safeParse` gives.
 *
 * @example
 * piecewiseSafeParse(CassetteSchema, doc, { path: ['run', 'steps'], element: StepSchema, minLength: 1000 }, { maxIssues: 1000 })
 */
export function piecewiseSafeParse<S extends z.ZodType>(
  schema: S,
  value: unknown,
  array: PiecewiseArray,
  options: PiecewiseOptions,
): PiecewiseResult<z.output<S>> | typeof TOO_MANY_ISSUES {
  const items = arrayAt(value, array.path)
  if (!items || items.length < array.minLength) return wrap(boundedSafeParse(schema, value))

  const parsed: unknown[] = []
  const issues: z.core.$ZodIssue[] = []
  let truncated = false
  for (let i = 0; i < items.length; i++) {
    const r = boundedSafeParse(array.element, items[i])
    if (r === TOO_MANY_ISSUES) return TOO_MANY_ISSUES
    if (r.success) parsed.push(r.data)
    else {
      for (const issue of r.error.issues) issues.push({ ...issue, path: [...array.path, i, ...issue.path] })
      if (issues.length >= options.maxIssues && i < items.length - 1) {
        truncated = true
        break
      }
    }
  }
  for (const extra of options.extraIssues?.(items) ?? []) {
    const path = [...array.path.slice(0, -1), ...extra.path]
    issues.push({ code: 'custom', input: undefined, path, message: extra.message } as z.core.$ZodIssue)
  }

  const shell = withArray(value as Record<string, unknown>, array.path, [])
  const rest = boundedSafeParse(schema, shell)
  if (rest === TOO_MANY_ISSUES) return TOO_MANY_ISSUES
  if (!rest.success || issues.length > 0) {
    return { success: false, issues: [...(rest.success ? [] : rest.error.issues), ...issues], truncated }
  }
  // zod's output objects are its own copies: the parsed items go back where the empty array was.
  let at = rest.data as Record<string, unknown>
  for (const key of array.path.slice(0, -1)) at = at[key] as Record<string, unknown>
  at[array.path[array.path.length - 1]!] = parsed
  return { success: true, data: rest.data }
}

function wrap<T>(
  r: z.ZodSafeParseResult<T> | typeof TOO_MANY_ISSUES,
): PiecewiseResult<T> | typeof TOO_MANY_ISSUES {
  if (r === TOO_MANY_ISSUES) return r
  return r.success
    ? { success: true, data: r.data }
    : { success: false, issues: r.error.issues, truncated: false }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function arrayAt(value: unknown, path: readonly string[]): unknown[] | undefined {
  let at: unknown = value
  for (const key of path) {
    if (!isPlainObject(at) || !Object.hasOwn(at, key)) return undefined
    at = at[key]
  }
  return Array.isArray(at) ? at : undefined
}

/** A copy of `value` along `path` only, with the array at its end replaced. */
function withArray(value: Record<string, unknown>, path: readonly string[], replacement: unknown[]): unknown {
  const [key, ...rest] = path
  const copy = { ...value }
  copy[key!] =
    rest.length === 0 ? replacement : withArray(value[key!] as Record<string, unknown>, rest, replacement)
  return copy
}
