import type { StepError } from '../case/schema/step.ts'

/**
 * What decides whether a tool call failed: a wrapped tool's `tool` step, a `ToolCall` of
 * `run.toolCalls()`, or a result seen on the model's side (`isError` is then the API's error flag).
 *
 * @example
 * const outcome: ToolOutcome = { error: null, result: { error: 'no order Z99' } }
 */
export interface ToolOutcome {
  /** What the tool threw, as the step stores it; null or absent when it returned. */
  error?: StepError | null
  /** The API marked the result as an error (`tool_result.isError`). */
  isError?: boolean
  /** What the tool returned, as data or as the text the agent sent back. */
  result?: unknown
  /** An MCP tool step's `mcp`: `isError` is the server's flag, kept even when the result is redacted away. */
  mcp?: { isError?: boolean | undefined } | undefined
}

/**
 * The one definition of a failed tool call, shared by `run.toolCalls(name, { okOnly: true })`, the
 * detectors (`tool_error_streak`, `suspicious_tool_result`) and the heuristic diagnosis. A call failed
 * when the tool threw (the step's `error`), when the API or the MCP server (`mcp.isError`) flagged its
 * result as an error, or when it returned an object whose `isError` is `true` (MCP's shape) or whose
 * top-level `error` is set: anything but `null`, `undefined` and `false` (how agents report a failure
 * where the API has no error flag).
 * A result that is JSON text of such an object (tools that answer a model with a string) counts too.
 * A blocked call has an `error` and counts as failed; callers that treat blocked calls apart check
 * `blocked` first.
 *
 * @example
 * isFailedToolCall({ error: { name: 'Error', message: 'timeout' } }) // true
 * isFailedToolCall({ error: null, result: { error: 'no order Z99' } }) // true
 * isFailedToolCall({ error: null, result: '{"isError":true,"content":[]}' }) // true
 * isFailedToolCall({ error: null, result: { ok: true, error: null } }) // false
 */
export function isFailedToolCall(call: ToolOutcome): boolean {
  if (call.error !== null && call.error !== undefined) return true
  if (call.isError === true || call.mcp?.isError === true) return true
  return isErrorResult(call.result)
}

/**
 * The result half of `isFailedToolCall`: a returned value (or its JSON text) that says it is an error.
 *
 * @example
 * isErrorResult({ error: 'no order Z99' }) // true
 * isErrorResult({ error: false, ok: true }) // false
 */
export function isErrorResult(value: unknown): boolean {
  const object = typeof value === 'string' ? parseObject(value) : value
  if (typeof object !== 'object' || object === null || Array.isArray(object)) return false
  const { error, isError } = object as { error?: unknown; isError?: unknown }
  return isError === true || (error !== undefined && error !== null && error !== false)
}

/** The object a JSON text holds; undefined for any other text (a cheap first-character test first). */
function parseObject(text: string): unknown {
  let i = 0
  while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++
  if (text[i] !== '{') return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
