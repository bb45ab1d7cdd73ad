import { canonicalStringify } from '../../case/canonical-json.ts'
import { isMcpHttpStep } from '../../case/mcp-steps.ts'
import type { JsonValue } from '../../case/schema/json.ts'
import type { HttpStep, Step, StepError, WireResponse } from '../../case/schema/step.ts'
import { compare } from '../compare.ts'
import type { Difference } from '../difference.ts'

/**
 * What a run diff needs to know about one step: when two steps are the same call (the signature),
 * when they are at least the same kind of call (the loose key), and the request and the response as
 * plain JSON for a field diff. Two recordings of one agent differ in things nobody changed (loopback
 * ports, request ids, tool-call ids, token counts), so those are left out of every comparison here.
 * MCP's wire detail is too (JSON-RPC ids, session ids, SSE framing and timings, `_meta`): an MCP tool
 * step compares as a tool step, plus its server, and an MCP message by its method, params and answer.
 */

/**
 * The same call: an LLM request by its hash, a tool by name and canonical arguments (and its server, for
 * an MCP tool), an MCP message by its method and params, another HTTP exchange by method and path. The host is left out, as the request hash leaves it out: a scripted or local
 * server listens on a new port on every recording.
 *
 * @example
 * stepSignature(toolStep) // 'tool\u0000issue_refund\u0000{"amount":49,"order_id":"A17"}'
 */
export function stepSignature(step: Step): string {
  if (step.type === 'llm') return `llm\u0000${step.request.requestHash}`
  if (step.type === 'tool') {
    const server = step.mcp ? `\u0000${step.mcp.server}` : ''
    return `tool\u0000${step.name}\u0000${canonicalStringify(step.args)}${server}`
  }
  if (isMcpHttpStep(step)) return `mcp\u0000${step.label}\u0000${canonicalStringify(mcpRequest(step))}`
  return `http\u0000${step.request.method.toUpperCase()}\u0000${pathOf(step.request.url)}`
}

/**
 * The same kind of call, whatever its content: the model endpoint, the tool's name, the HTTP method
 * and path without the query. Steps that share this but not the signature are a changed request.
 *
 * @example
 * looseKey(toolStep) // 'tool\u0000issue_refund'
 */
export function looseKey(step: Step): string {
  if (step.type === 'llm') return `llm\u0000${step.provider}\u0000${step.endpoint}`
  if (step.type === 'tool') return `tool\u0000${step.name}`
  if (isMcpHttpStep(step)) return `mcp\u0000${step.label}`
  return `http\u0000${step.request.method.toUpperCase()}\u0000${pathOf(step.request.url).split('?')[0]}`
}

/**
 * A short name for people: `llm gpt-4o-mini`, `tool issue_refund`, `tool issue_refund (mcp: orders-server)`,
 * `mcp tools/list`, `http GET /v1/models`.
 *
 * @example
 * stepLabel(toolStep) // 'tool issue_refund'
 */
export function stepLabel(step: Step): string {
  if (step.type === 'llm') return `llm ${step.request.normalized?.model ?? step.endpoint}`
  if (step.type === 'tool') return `tool ${step.name}${step.mcp ? ` (mcp: ${step.mcp.server})` : ''}`
  if (isMcpHttpStep(step)) return `mcp ${step.label.slice(4)}`
  return `http ${step.request.method.toUpperCase()} ${pathOf(step.request.url).split('?')[0]}`
}

/**
 * The request fields that are compared: the normalized request (the wire body when a side has none),
 * a tool's name and arguments, an HTTP exchange's method, URL and body.
 *
 * @example
 * requestDifferences(a.steps[3]!, b.steps[3]!) // [{ path: '$.system[0].text', kind: 'value_mismatch', … }]
 */
export function requestDifferences(a: Step, b: Step): Difference[] {
  return compare(requestView(a), requestView(b), { mode: 'normalized' }).differences
}

/**
 * The response fields that are compared: the normalized response without ids and usage (the wire
 * status and body when a side has none), a tool's result, error and blocking, an HTTP status and body.
 *
 * @example
 * responseDifferences(a.steps[2]!, b.steps[2]!) // [{ path: '$.toolCalls[0].args.amount', … }]
 */
export function responseDifferences(a: Step, b: Step): Difference[] {
  return compare(responseView(a), responseView(b), { mode: 'normalized' }).differences
}

/**
 * The same call with the same result: the signature and the compared response fields, as one string.
 *
 * @example
 * outcomeKey(a.steps[0]!) === outcomeKey(b.steps[0]!) // the same request answered the same way
 */
export function outcomeKey(step: Step): string {
  return `${stepSignature(step)}\u0000${canonicalStringify(responseView(step))}`
}

function requestView(step: Step): JsonValue {
  if (step.type === 'tool') {
    return step.mcp
      ? { name: step.name, args: step.args, server: step.mcp.server }
      : { name: step.name, args: step.args }
  }
  if (isMcpHttpStep(step)) return { label: step.label, messages: mcpRequest(step) }
  if (step.type === 'http') {
    return { method: step.request.method, url: step.request.url, body: httpBody(step.request) }
  }
  return step.request.normalized ?? { body: httpBody(step.request.wire) }
}

function responseView(step: Step): JsonValue {
  const error = errorView(step.error)
  if (step.type === 'tool') {
    return { result: step.result ?? null, error, blocked: step.blocked ?? false }
  }
  if (isMcpHttpStep(step)) {
    return step.response
      ? { status: step.response.status, answers: mcpAnswers(step.response), error }
      : { response: null, error }
  }
  const response = step.type === 'llm' ? step.response?.wire : step.response
  const normalized = step.type === 'llm' ? step.response?.normalized : null
  // Request ids, tool-call ids and token counts change on every recording; usage is compared per run.
  if (normalized) {
    const toolCalls = normalized.toolCalls.map(({ id: _id, ...call }) => call)
    return {
      model: normalized.model,
      parts: normalized.parts,
      toolCalls,
      finishReason: normalized.finishReason,
      error,
    }
  }
  if (!response) return { response: null, error }
  return { status: response.status, body: httpBody(response), error }
}

function httpBody(message: { body: JsonValue; bodyText?: string | undefined }): JsonValue {
  return message.body ?? message.bodyText ?? null
}

/** The JSON-RPC messages an MCP step sent, without what changes per recording: `id`, `params._meta`. */
function mcpRequest(step: HttpStep): JsonValue {
  const body = step.request.body
  const messages = Array.isArray(body) ? body : [body]
  return messages.map((m) => {
    if (typeof m !== 'object' || m === null || Array.isArray(m)) return m
    const { jsonrpc: _v, id: _id, params, ...rest } = m
    if (typeof params !== 'object' || params === null || Array.isArray(params)) {
      return params === undefined ? rest : { ...rest, params }
    }
    const { _meta, ...kept } = params
    return { ...rest, params: kept }
  })
}

/**
 * The JSON-RPC answers of an MCP step (`result` or `error`, without `id`), from a JSON body or the SSE
 * events, whichever framing the server chose; the server's own messages in the stream are left out.
 */
function mcpAnswers(response: WireResponse): JsonValue {
  const found: JsonValue[] = []
  const add = (m: unknown): void => {
    if (Array.isArray(m)) for (const x of m) add(x)
    else if (typeof m === 'object' && m !== null) {
      const { result, error } = m as { result?: JsonValue; error?: JsonValue }
      if (result !== undefined) found.push({ result })
      else if (error !== undefined) found.push({ error })
    }
  }
  add(response.body)
  for (const chunk of response.chunks ?? []) {
    try {
      add(JSON.parse(chunk.data))
    } catch {
      // Not JSON (a keep-alive, a comment): not an answer.
    }
  }
  return found
}

function errorView(error: StepError | null): JsonValue {
  return error ? { name: error.name, message: error.message } : null
}

/** `/v1/models?x=1` from an absolute URL; the text as it is when it does not parse. */
function pathOf(url: string): string {
  try {
    const u = new URL(url)
    return u.pathname + u.search
  } catch {
    return url
  }
}
