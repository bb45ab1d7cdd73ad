import { clipText } from './clip-text.ts'

/**
 * How big a parsed document may be, beyond its byte size, before any schema looks at it. A few MB of
 * JSON can hold hundreds of thousands of tiny entries or thousands of nested arrays: the schema
 * validator (zod) and every recursive walker after it (canonical writer, redactor, converters) would
 * then run out of stack with an untyped `RangeError`, or build a multi-million-issue report.
 */
export interface JsonBounds {
  /** Deepest nesting of objects and arrays; the root object is level 1. */
  maxDepth: number
  /** Most entries (keys, or items) in any one object or array. */
  maxContainerEntries: number
  /** Most entries in the whole document, all objects and arrays together. */
  maxEntries: number
}

/**
 * The bounds of both loaders (cassettes and AgentCase files), documented in docs/cassette.md and
 * docs/agentcase.md. A realistic 16 MiB run holds ~280,000 entries at a depth of ~12, its widest array
 * a few thousand steps; Python's `json`, the AgentCase reference reader, stops near 1,000 levels.
 *
 * @example
 * JSON_BOUNDS.maxDepth // 1000
 */
export const JSON_BOUNDS: Readonly<JsonBounds> = Object.freeze({
  maxDepth: 1000,
  maxContainerEntries: 100_000,
  maxEntries: 1_000_000,
})

/** What broke a bound, and where: the path of the container, or of its nearest ancestor at depth ≤ 6. */
export interface JsonBoundsProblem {
  kind: 'depth' | 'container' | 'entries'
  /** A `$`-path, clipped; `…` at its end means "somewhere under here". */
  at: string
  /** For `container`: the size of the container. */
  count?: number
}

/** Paths are spelled out this deep; below, the ancestor's path is kept (cheap, and enough to find the spot). */
const PATH_DEPTH = 6
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/

/**
 * Walks a parsed value without recursion (so it cannot overflow the stack itself) and returns the first
 * bound it breaks, or undefined. Each value is visited once; the walk stops as soon as a bound is broken,
 * so a cycle in an in-memory value ends at `maxDepth` or `maxEntries`.
 *
 * @example
 * const problem = findBoundsProblem(JSON.parse(text))
 * if (problem) throw new Error(describeBoundsProblem(problem, 'cassette a.json'))
 */
export function findBoundsProblem(
  root: unknown,
  bounds: Readonly<JsonBounds> = JSON_BOUNDS,
): JsonBoundsProblem | undefined {
  if (typeof root !== 'object' || root === null) return undefined
  const stack: Array<[object, number, string]> = [[root, 1, '$']]
  let total = 0
  while (stack.length > 0) {
    const [node, depth, at] = stack.pop()!
    if (depth > bounds.maxDepth) return { kind: 'depth', at: at.endsWith('…') ? at : `${at}…` }
    const isArray = Array.isArray(node)
    const keys = isArray ? undefined : Object.keys(node)
    const size = isArray ? (node as unknown[]).length : keys!.length
    if (size > bounds.maxContainerEntries) return { kind: 'container', at, count: size }
    total += size
    if (total > bounds.maxEntries) return { kind: 'entries', at }
    const spell = depth < PATH_DEPTH
    for (let i = 0; i < size; i++) {
      const key = isArray ? i : keys![i]!
      const child = (node as Record<string | number, unknown>)[key]
      if (typeof child !== 'object' || child === null) continue
      stack.push([child, depth + 1, spell ? `${at}${segment(key)}` : at.endsWith('…') ? at : `${at}…`])
    }
  }
  return undefined
}

/**
 * The sentence for a problem, after the name of the document: "is nested deeper than 1,000 levels
 * (under $.run.steps[3]…)".
 *
 * @example
 * `${where} ${describeBoundsProblem(problem)}`
 */
export function describeBoundsProblem(
  problem: JsonBoundsProblem,
  bounds: Readonly<JsonBounds> = JSON_BOUNDS,
): string {
  const n = (x: number) => x.toLocaleString('en-US')
  if (problem.kind === 'depth') {
    return `is nested deeper than ${n(bounds.maxDepth)} levels (under ${problem.at})`
  }
  if (problem.kind === 'container') {
    return `has ${n(problem.count ?? 0)} entries in one object or array (at ${problem.at}), over the limit of ${n(bounds.maxContainerEntries)}`
  }
  return `holds more than ${n(bounds.maxEntries)} entries in all (objects and arrays together, counted up to ${problem.at}), over the limit`
}

function segment(key: string | number): string {
  if (typeof key === 'number') return `[${key}]`
  if (IDENTIFIER.test(key)) return `.${clipText(key, 40)}`
  return `['${clipText(key, 40).replace(/\\/g, '\\\\').replace(/'/g, "\\'")}']`
}
