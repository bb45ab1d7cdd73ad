import { declaresSideEffects, isMcpHttpStep, mcpResultValue } from '../../case/mcp-steps.ts'
import type { JsonValue } from '../../case/schema/json.ts'
import type { Message, Part } from '../../case/schema/normalized.ts'
import type { HttpStep, Step, ToolStep, WireRequest, WireResponse } from '../../case/schema/step.ts'

/** One block of a step's request or response, as text: what a reader unfolds. */
export interface StepSection {
  label: string
  text: string
}

/** A step as both renderers show it: a one-line row, and the full request and response as text. */
export interface StepView {
  index: number
  type: Step['type']
  /** `openai-chat gpt-4o-mini`, `get_order`, `issue_refund (mcp: orders-server)`, `mcp:tools/list`, `GET https://…` */
  title: string
  status: 'ok' | 'error' | 'blocked' | 'incomplete' | 'no response'
  /** The error, the HTTP status or the finish reason, in a few words. */
  detail: string
  durationMs: number
  tokens: { input: number; output: number } | null
  /** The step's own cost: a number, `null` when it has none, `undefined` for steps that are never priced. */
  usd: number | null | undefined
  requestSummary: string
  responseSummary: string
  request: StepSection[]
  response: StepSection[]
}

/** Describes one step for the report. Reads only the (already redacted) step. */
export function viewStep(step: Step): StepView {
  const base = { index: step.index, type: step.type, durationMs: step.timing.durationMs }
  const errorText = step.error ? `${step.error.name}: ${step.error.message}` : ''
  if (step.type === 'tool' && step.mcp) return viewMcpTool(step, base, errorText)
  if (isMcpHttpStep(step)) return viewMcpMessage(step, base, errorText)
  if (step.type === 'tool') {
    const result = step.result === undefined ? '' : json(step.result)
    return {
      ...base,
      title: step.name,
      status: step.error ? 'error' : step.blocked ? 'blocked' : 'ok',
      detail: errorText || (step.blocked ? 'blocked (side effects)' : step.sideEffects ? 'side effects' : ''),
      tokens: null,
      usd: undefined,
      requestSummary: oneLine(json(step.args)),
      responseSummary: oneLine(step.error ? errorText : result),
      request: [{ label: 'arguments', text: json(step.args, 2) }],
      response: step.error
        ? [{ label: 'error', text: errorText }]
        : step.result === undefined
          ? []
          : [{ label: 'result', text: json(step.result, 2) }],
    }
  }
  if (step.type === 'http') {
    const res = step.response
    return {
      ...base,
      title: `${step.request.method} ${step.request.url}`,
      status: step.error ? 'error' : res ? 'ok' : 'no response',
      detail:
        errorText || (res ? `HTTP ${res.status}${step.label === 'unknown' ? '' : ` ${step.label}`}` : ''),
      tokens: null,
      usd: undefined,
      requestSummary: oneLine(bodyOf(step.request)),
      responseSummary: oneLine(step.error ? errorText : res ? bodyOf(res) : ''),
      request: [{ label: 'wire request', text: wireRequest(step.request) }],
      response: res ? [{ label: 'wire response', text: wireResponse(res) }] : [],
    }
  }
  const normReq = step.request.normalized
  const res = step.response
  const normRes = res?.normalized ?? null
  const usage = normRes?.usage
  const answer = normRes
    ? [...normRes.parts.map(partText), ...normRes.toolCalls.map(partText)].join('\n')
    : ''
  const finish = normRes?.finishReason ? `finish ${normRes.finishReason}` : ''
  const request: StepSection[] = []
  if (normReq) request.push({ label: 'conversation', text: conversation(normReq.system, normReq.messages) })
  request.push({ label: 'wire request', text: wireRequest(step.request.wire) })
  const response: StepSection[] = []
  if (normRes) response.push({ label: 'answer', text: answer || '(no text, no tool calls)' })
  if (res) response.push({ label: 'wire response', text: wireResponse(res.wire) })
  const last = normReq?.messages.at(-1)
  return {
    ...base,
    title: `${step.provider} ${normRes?.model ?? normReq?.model ?? step.endpoint}`,
    status: step.error ? 'error' : !res ? 'no response' : res.incomplete ? 'incomplete' : 'ok',
    detail:
      errorText ||
      [res && res.wire.status >= 400 ? `HTTP ${res.wire.status}` : '', finish].filter(Boolean).join(', '),
    tokens: usage ? { input: usage.inputTokens, output: usage.outputTokens } : null,
    usd: step.cost === undefined ? null : (step.cost?.usd ?? null),
    requestSummary: oneLine(last ? messageText(last) : bodyOf(step.request.wire)),
    responseSummary: oneLine(step.error ? errorText : normRes ? answer : res ? bodyOf(res.wire) : ''),
    request,
    response,
  }
}

type Base = Pick<StepView, 'index' | 'type' | 'durationMs'>

/**
 * An MCP server's tool: a tool row named with its server, the tool's text as its answer, and a result
 * that says `isError` a failure (the call went through; the tool reported it failed). The HTTP
 * exchange is kept, after the tool's own sections.
 */
function viewMcpTool(step: ToolStep, base: Base, errorText: string): StepView {
  const mcp = step.mcp!
  const value = mcpResultValue(step.result)
  const text = value === undefined ? '' : typeof value === 'string' ? value : json(value)
  const failed = !step.error && mcp.isError === true
  const response: StepSection[] = step.error
    ? [{ label: 'error', text: errorText }]
    : step.result === undefined
      ? []
      : [{ label: failed ? 'result (isError)' : 'result', text: json(step.result, 2) }]
  if (mcp.response) response.push({ label: 'wire response (mcp)', text: wireResponse(mcp.response) })
  return {
    ...base,
    title: `${step.name} (mcp: ${mcp.server})`,
    status: step.error || failed ? 'error' : step.blocked ? 'blocked' : 'ok',
    detail:
      errorText ||
      // A `side effects` note only when the server's annotations or the config said so: an unlisted MCP
      // tool's `sideEffects: true` is an assumption.
      (failed
        ? `tool error: ${oneLine(text)}`
        : step.blocked
          ? 'blocked (side effects)'
          : step.sideEffects && declaresSideEffects(step)
            ? 'side effects'
            : ''),
    tokens: null,
    usd: undefined,
    requestSummary: oneLine(json(step.args)),
    responseSummary: oneLine(step.error ? errorText : failed ? `tool error: ${text}` : text),
    request: [
      { label: 'arguments', text: json(step.args, 2) },
      { label: 'wire request (mcp)', text: wireRequest(mcp.request) },
    ],
    response,
  }
}

/**
 * An MCP message that is not a tool call (the handshake, `tools/list`): one row named by its method,
 * with no summary lines unless it failed; the exchange stays in its sections.
 */
function viewMcpMessage(step: HttpStep, base: Base, errorText: string): StepView {
  const res = step.response
  const failed = !!step.error || !res || res.status >= 400
  return {
    ...base,
    title: step.label,
    status: step.error ? 'error' : res ? 'ok' : 'no response',
    detail: errorText || (res && res.status >= 400 ? `HTTP ${res.status}` : ''),
    tokens: null,
    usd: undefined,
    requestSummary: failed ? oneLine(bodyOf(step.request)) : '',
    responseSummary: failed && res ? oneLine(bodyOf(res)) : '',
    request: [{ label: 'wire request', text: wireRequest(step.request) }],
    response: res ? [{ label: 'wire response', text: wireResponse(res) }] : [],
  }
}

function json(value: JsonValue, indent?: number): string {
  return JSON.stringify(value, null, indent) ?? 'undefined'
}

/** Collapses whitespace so that a summary fits on one row; renderers shorten it further. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}

function partText(part: Part): string {
  switch (part.type) {
    case 'text':
      return part.text
    case 'tool_call':
      return `→ ${part.name}(${part.argsText ?? JSON.stringify(part.args)})`
    case 'tool_result':
      return `← ${part.name ?? part.id}${part.isError ? ' [error]' : ''}: ${part.content}`
    case 'media':
      return `[${part.mediaType}${part.bytes === null ? '' : `, ${part.bytes} bytes`}${part.ref ? `, ${part.ref}` : ''}]`
    case 'reasoning':
      return part.opaque ? '(reasoning, not readable)' : `(reasoning) ${part.text}`
  }
}

function messageText(message: Message): string {
  return `${message.role}${message.name ? ` ${message.name}` : ''}: ${message.parts.map(partText).join('\n')}`
}

function conversation(system: Part[], messages: Message[]): string {
  const lines = system.length ? [`system: ${system.map(partText).join('\n')}`] : []
  for (const m of messages) lines.push(messageText(m))
  return lines.join('\n\n')
}

function bodyOf(wire: WireRequest | WireResponse): string {
  if (wire.bodyFile) return `[binary ${wire.bodyFile.mediaType}, ${wire.bodyFile.bytes} bytes]`
  if ('chunks' in wire && wire.chunks) {
    return wire.chunks.map((c) => `${c.event ? `event: ${c.event}\n` : ''}data: ${c.data}`).join('\n\n')
  }
  if (wire.body !== null) return json(wire.body, 2)
  return wire.bodyText ?? ''
}

function headerLines(headers: Record<string, string>): string {
  return Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\n`)
    .join('')
}

function wireRequest(wire: WireRequest): string {
  return `${wire.method} ${wire.url}\n${headerLines(wire.headers)}\n${bodyOf(wire)}`
}

function wireResponse(wire: WireResponse): string {
  return `HTTP ${wire.status}\n${headerLines(wire.headers)}\n${bodyOf(wire)}`
}
