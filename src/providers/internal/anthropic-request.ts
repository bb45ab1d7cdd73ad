import type { JsonObject, JsonValue } from '../../case/schema/json.ts'
import type { NormalizedRequest, Params, ToolDefinition } from '../../case/schema/normalized.ts'
import type { WireRequest } from '../../case/schema/step.ts'
import { arr, isRecord, num, rest, str } from './anthropic-gemini-values.ts'
import { readAnthropicMessages, readAnthropicSystem } from './anthropic-read-messages.ts'

/**
 * Anthropic Messages request → normalized request. Every body field without a neutral name lands in
 * `params.extra` under its wire name (`metadata`, `thinking`, `top_k`, ...), and so does what is left
 * of a partly described field (`tool_choice.disable_parallel_tool_use`, `output_config.effort`).
 */

/** Body fields the normalized request describes; every other one goes to `params.extra`. */
const DESCRIBED = [
  'model',
  'messages',
  'system',
  'tools',
  'max_tokens',
  'temperature',
  'top_p',
  'stop_sequences',
]
const PARTLY = ['stream', 'tool_choice', 'output_config']

/**
 * The normalized form of an Anthropic Messages request.
 *
 * @example
 * normalizeAnthropicRequest({ method: 'POST', url, headers: {}, body: { model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] } })
 * // { model: 'claude-sonnet-4-5', system: [], messages: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }], tools: [], params: { maxTokens: 64 } }
 */
export function normalizeAnthropicRequest(wire: WireRequest): NormalizedRequest {
  const body = isRecord(wire.body) ? wire.body : {}
  return {
    model: str(body.model) ?? '',
    system: body.system === undefined ? [] : readAnthropicSystem(body.system),
    messages: readAnthropicMessages(body.messages).flatMap((turn) => turn.messages),
    tools: readAnthropicTools(body.tools),
    params: readParams(body),
  }
}

/**
 * The client tools of a request. Server tools (`web_search_…`, `code_execution_…`) have no input
 * schema and run at Anthropic: they stay in the wire body only.
 *
 * @example
 * readAnthropicTools([{ name: 'get_order', input_schema: { type: 'object' } }]) // [{ name: 'get_order', parameters: { type: 'object' } }]
 */
export function readAnthropicTools(tools: unknown): ToolDefinition[] {
  const out: ToolDefinition[] = []
  for (const tool of arr(tools)) {
    const def = readTool(tool)
    if (def) out.push(def)
  }
  return out
}

/**
 * One client tool, or undefined for a server tool.
 *
 * @example
 * readTool({ type: 'web_search_20250305', name: 'web_search' }) // undefined
 */
export function readTool(tool: unknown): ToolDefinition | undefined {
  if (!isRecord(tool) || !isRecord(tool.input_schema)) return undefined
  const def: ToolDefinition = { name: str(tool.name) ?? '', parameters: tool.input_schema }
  const description = str(tool.description)
  if (description !== undefined) def.description = description
  return def
}

function readParams(body: JsonObject): Params {
  const params: Params = {}
  const extra: Record<string, JsonValue> = {}
  for (const [key, value] of Object.entries(body)) {
    // An own `__proto__` key (JSON.parse makes one) would replace `extra`'s prototype; a cassette drops it anyway.
    if (!DESCRIBED.includes(key) && !PARTLY.includes(key) && key !== '__proto__') extra[key] = value
  }
  // A described field of the wrong type is kept as it was sent rather than dropped.
  const keep = (key: string) => {
    if (body[key] !== undefined) extra[key] = body[key]
  }
  if (num(body.temperature) !== undefined) params.temperature = num(body.temperature)
  else keep('temperature')
  if (num(body.top_p) !== undefined) params.topP = num(body.top_p)
  else keep('top_p')
  if (Number.isInteger(body.max_tokens)) params.maxTokens = body.max_tokens as number
  else keep('max_tokens')
  if (Array.isArray(body.stop_sequences) && body.stop_sequences.every((s) => typeof s === 'string')) {
    params.stop = body.stop_sequences as string[]
  } else keep('stop_sequences')
  if (typeof body.stream === 'boolean') params.stream = body.stream
  else keep('stream')

  const choice = readToolChoice(body.tool_choice)
  if (choice.toolChoice !== undefined) params.toolChoice = choice.toolChoice
  if (choice.rest !== undefined) extra.tool_choice = choice.rest

  if (isRecord(body.output_config)) {
    if (body.output_config.format !== undefined) params.responseFormat = body.output_config.format
    const others = rest(body.output_config, ['format'])
    if (others) extra.output_config = others
  } else keep('output_config')

  if (Object.keys(extra).length > 0) params.extra = extra
  return params
}

/**
 * `tool_choice` → the neutral tool choice, and what is left of it (`disable_parallel_tool_use`). A
 * choice of a type crashlab does not know is kept whole.
 *
 * @example
 * readToolChoice({ type: 'any', disable_parallel_tool_use: true })
 * // { toolChoice: 'required', rest: { disable_parallel_tool_use: true } }
 */
export function readToolChoice(choice: unknown): { toolChoice?: JsonValue; rest?: JsonValue } {
  if (choice === undefined) return {}
  if (!isRecord(choice)) return { rest: choice as JsonValue }
  const others = rest(choice, ['type', 'name'])
  const withRest = (toolChoice: JsonValue) => (others ? { toolChoice, rest: others } : { toolChoice })
  switch (choice.type) {
    case 'auto':
      return withRest('auto')
    case 'none':
      return withRest('none')
    case 'any':
      return withRest('required')
    case 'tool':
      if (typeof choice.name === 'string') return withRest({ name: choice.name })
      return { rest: choice }
    default:
      return { rest: choice }
  }
}
