import { canonicalStringify } from '../../../case/canonical-json.ts'
import { mcpResultValue } from '../../../case/mcp-steps.ts'
import type { JsonValue } from '../../../case/schema/json.ts'
import type { Message, ToolDefinition, ToolResultPart } from '../../../case/schema/normalized.ts'
import type { LlmStep, Step, ToolStep } from '../../../case/schema/step.ts'
import { newestFrom } from './newest-messages.ts'

/**
 * Tool calls and their results as steps arrive, each call once, for the detectors. It follows the same
 * pairing rules as `collectToolCalls` (src/checks/internal/collect-tool-calls.ts), which works on a
 * finished run: a call is seen in an LLM response (`source: 'model'`) or as a wrapped tool's step
 * (`source: 'tool'`); a wrapped step that answers a model call (same call id, or with no id the earliest
 * open call with the same name and arguments) is that call's result, not a new call. A model call that
 * no wrapped step answers gets its result from the `tool_result` part of the next LLM request; unlike
 * `collectToolCalls`, which keeps looking, a call whose result is not in that request is closed without
 * one, so that no request is searched for old calls.
 *
 * Everything is a hash-map lookup or a read of the request's newest messages (those after the last
 * assistant message), so a run costs time linear in its size.
 */

/** One tool call, when it is first seen. */
export interface TrackedCall {
  name: string
  args: JsonValue
  /** The arguments as text: the model's own text when it was not JSON, else compact JSON (made on first use). */
  readonly argsText: string
  /** The model wrote arguments that are not JSON. */
  argsInvalid: boolean
  /** Name and canonical arguments: equal for the same call made again. */
  key: string
  /** The LLM step that asked for it, or the wrapped tool's step. */
  step: number
  source: 'model' | 'tool'
  callId?: string
  /** The tools the request that led to this call declared (model calls), for schema checks. */
  tools?: readonly ToolDefinition[]
}

/** What a tool call gave back, when it is seen. */
export interface TrackedResult {
  call: TrackedCall
  /** The step the result is in: the wrapped tool's step, or the LLM request that carried it. */
  step: number
  /**
   * The result as text, verbatim: a string result, `tool_result` content or an error message as is, other
   * data as compact JSON (made on first use: most results are never quoted).
   */
  readonly text: string
  /** The result as data: a wrapped tool's value, or the content parsed when it is JSON (else the string). */
  value: JsonValue | undefined
  /** `text` is the step's own string (not JSON made from data). */
  rawText: boolean
  /** The text looked like JSON (`{`, `[`) but did not parse: cut off, most likely. */
  brokenJson: boolean
  /** The tool threw, or the API or the MCP server (`mcp.isError`) marked the result as an error. */
  isError: boolean
  /** A side-effect tool that was blocked instead of run. */
  blocked: boolean
}

/** A call whose argument text is made only when something quotes it. */
class Call implements TrackedCall {
  name: string
  args: JsonValue
  argsInvalid: boolean
  key: string
  step: number
  source: 'model' | 'tool'
  callId?: string
  tools?: readonly ToolDefinition[]
  private text: string | undefined

  constructor(
    name: string,
    args: JsonValue,
    argsText: string | undefined,
    step: number,
    source: 'model' | 'tool',
  ) {
    this.name = name
    this.args = args
    this.text = argsText
    this.argsInvalid = argsText !== undefined
    this.key = callKey(name, argsText ?? args)
    this.step = step
    this.source = source
  }

  get argsText(): string {
    this.text ??= jsonText(this.args)
    return this.text
  }
}

/** A result whose text is made only when something quotes it. */
class Result implements TrackedResult {
  call: TrackedCall
  step: number
  value: JsonValue | undefined
  rawText: boolean
  brokenJson: boolean
  isError: boolean
  blocked: boolean
  private raw: string | undefined
  private data: unknown

  constructor(call: TrackedCall, step: number, text: string | undefined, data: unknown) {
    this.call = call
    this.step = step
    this.raw = text
    this.rawText = text !== undefined
    this.data = data
    this.value = undefined
    this.brokenJson = false
    this.isError = false
    this.blocked = false
  }

  get text(): string {
    this.raw ??= this.data === undefined ? '' : jsonText(this.data)
    return this.raw
  }
}

/** What one step added: results first (a request answers earlier calls), then the calls it asked for. */
export interface ToolEvents {
  results: TrackedResult[]
  calls: TrackedCall[]
}

const NONE: ToolEvents = Object.freeze({ results: [], calls: [] }) as unknown as ToolEvents

interface ModelEntry {
  call: TrackedCall
  /** Answered (by a wrapped step or a request), or past the request that should have answered it. */
  closed: boolean
}

/**
 * The incremental tracker: `observe(step)` returns the tool events the step adds.
 *
 * @example
 * const tracker = new ToolCallTracker()
 * for (const step of run.steps) for (const call of tracker.observe(step).calls) console.log(call.name)
 */
export class ToolCallTracker {
  /** The newest open model call per call id: providers that repeat ids (Gemini) pair with the newest. */
  private readonly byId = new Map<string, ModelEntry>()
  /** Open model calls, by name and arguments, oldest first. */
  private readonly byKey = new Map<string, ModelEntry[]>()
  /** Model calls waiting for the next request's `tool_result`. */
  private open: ModelEntry[] = []

  observe(step: Step): ToolEvents {
    if (step.type === 'llm') return this.observeLlm(step)
    if (step.type === 'tool') return this.observeTool(step)
    return NONE
  }

  private observeLlm(step: LlmStep): ToolEvents {
    const results: TrackedResult[] = []
    if (this.open.length > 0) {
      const messages = step.request.normalized?.messages
      if (messages) this.settle(messages, step.index, results)
      // The request right after a call is where its result belongs; one that is not there never comes.
      for (const entry of this.open) this.close(entry)
      this.open = []
    }
    const parts = step.response?.normalized?.toolCalls
    if (!parts || parts.length === 0) return results.length === 0 ? NONE : { results, calls: [] }
    const tools = step.request.normalized?.tools
    const calls: TrackedCall[] = []
    for (const part of parts) {
      const call = new Call(part.name, part.args, part.argsText, step.index, 'model')
      call.callId = part.id
      if (tools) call.tools = tools
      const entry: ModelEntry = { call, closed: false }
      this.byId.set(part.id, entry)
      const queue = this.byKey.get(call.key)
      if (queue) queue.push(entry)
      else this.byKey.set(call.key, [entry])
      this.open.push(entry)
      calls.push(call)
    }
    return { results, calls }
  }

  private observeTool(step: ToolStep): ToolEvents {
    const answered = this.answered(step)
    let call: TrackedCall
    if (answered) {
      this.close(answered)
      call = answered.call
    } else {
      const own = new Call(step.name, step.args, undefined, step.index, 'tool')
      if (step.callId !== undefined) own.callId = step.callId
      call = own
    }
    const isError = step.error !== null
    // An MCP tool's result is read as a wrapped tool's return: its text, or its structured content.
    const value = step.mcp ? mcpResultValue(step.result) : step.result
    const result = isError
      ? new Result(call, step.index, step.error!.message, undefined)
      : typeof value === 'string'
        ? new Result(call, step.index, value, undefined)
        : new Result(call, step.index, undefined, value)
    if (!isError) {
      const parsed = typeof value === 'string' ? parseText(value) : { value, broken: false }
      result.value = parsed.value
      result.brokenJson = parsed.broken
    }
    // An MCP tool that reported a failure (`isError`) ran and answered, but failed, as `isFailedToolCall` says.
    result.isError = isError || step.mcp?.isError === true
    result.blocked = step.blocked === true
    return { results: [result], calls: answered ? [] : [call] }
  }

  /** The open model call a wrapped step answers, if any. */
  private answered(step: ToolStep): ModelEntry | undefined {
    if (step.callId !== undefined) {
      const entry = this.byId.get(step.callId)
      return entry && !entry.closed && entry.call.name === step.name ? entry : undefined
    }
    // The earliest open call with the same name and arguments: closed calls have left the queue.
    return this.byKey.get(callKey(step.name, step.args))?.[0]
  }

  /**
   * Marks a call answered (or past answering) and forgets it: the maps hold only open calls, so their
   * size stays that of one response's calls however long the run.
   */
  private close(entry: ModelEntry): void {
    if (entry.closed) return
    entry.closed = true
    const id = entry.call.callId!
    if (this.byId.get(id) === entry) this.byId.delete(id)
    const queue = this.byKey.get(entry.call.key)
    if (!queue) return
    const i = queue.indexOf(entry)
    if (i >= 0) queue.splice(i, 1)
    if (queue.length === 0) this.byKey.delete(entry.call.key)
  }

  /**
   * Results for open calls in the request's newest messages: those after the last assistant message,
   * where an agent puts the answers to that message's calls.
   */
  private settle(messages: Message[], step: number, out: TrackedResult[]): void {
    for (let m = newestFrom(messages); m < messages.length; m++) {
      for (const part of messages[m]!.parts) {
        if (part.type !== 'tool_result') continue
        const entry = this.byId.get(part.id)
        if (!entry || entry.closed) continue
        this.close(entry)
        out.push(modelResult(entry.call, part, step))
      }
    }
  }
}

function modelResult(call: TrackedCall, part: ToolResultPart, step: number): TrackedResult {
  const parsed = parseText(part.content)
  const result = new Result(call, step, part.content, undefined)
  result.value = parsed.value
  result.brokenJson = parsed.broken
  result.isError = part.isError
  return result
}

/** JSON text of a value, or its plain string form when JSON cannot carry it (a hand-built run). */
export function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

/** Name and canonical arguments (or the text the model wrote, when it is not JSON): `TrackedCall.key`. */
export function callKey(name: string, args: unknown): string {
  try {
    return `${name}\u0000${canonicalStringify(args)}`
  } catch {
    return `${name}\u0000${String(args)}`
  }
}

/** A text parsed as JSON when it looks like a JSON object or array; else the text itself. */
function parseText(text: string): { value: JsonValue; broken: boolean } {
  let i = 0
  while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++
  const first = text[i]
  if (first !== '{' && first !== '[') return { value: text, broken: false }
  try {
    return { value: JSON.parse(text) as JsonValue, broken: false }
  } catch {
    return { value: text, broken: true }
  }
}
