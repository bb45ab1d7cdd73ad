import type { JsonObject, JsonValue } from '../../case/schema/json.ts'
import type { NormalizedRequest, Part, ToolDefinition } from '../../case/schema/normalized.ts'
import type { WireRequest } from '../../case/schema/step.ts'
import { groupTurns, ReusePool, sameJson, sameOrOriginal } from './anthropic-gemini-turns.ts'
import { arr, isRecord, orderedBody } from './anthropic-gemini-values.ts'
import { field, keyIn, syntheticCallId, writeGeminiPart } from './gemini-parts.ts'
import { readGeminiContents, readGeminiSystem } from './gemini-read-contents.ts'
import { RESPONSE_FORMAT, readDeclaration, readGeminiTools } from './gemini-request.ts'
import { writeGeminiUrl } from './gemini-url.ts'

/**
 * Normalized request → Gemini request. The model and streaming switch go into the URL; the normalized
 * request decides every field it describes; the original gives back what it leaves out: unchanged
 * contents and parts are taken whole (thought signatures, inline bytes, code execution parts),
 * Google-run tools keep their place, the client's key spelling and key order are kept.
 */

/**
 * The wire request carrying `normalized`, built on `original`.
 *
 * @example
 * writeGeminiRequest({ ...normalized, model: 'gemini-2.5-pro' }, original).url
 * // 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:generateContent'
 */
export function writeGeminiRequest(normalized: NormalizedRequest, original: WireRequest): WireRequest {
  const orig = isRecord(original.body) ? original.body : {}
  const { params } = normalized
  const out: Record<string, JsonValue | undefined> = { ...params.extra }
  const key = (camel: string) => keyIn(orig, camel)
  out.contents = writeContents(normalized.messages, orig.contents)
  out[key('systemInstruction')] = writeSystem(normalized.system, field(orig, 'systemInstruction'))
  out[key('tools')] = writeTools(normalized.tools, field(orig, 'tools'))

  const configKey = key('generationConfig')
  const config: JsonObject = isRecord(out[configKey]) ? { ...(out[configKey] as JsonObject) } : {}
  const origConfig = field(orig, 'generationConfig')
  const base = isRecord(origConfig) ? origConfig : {}
  const set = (camel: string, value: JsonValue | undefined) => {
    if (value !== undefined) config[keyIn(base, camel)] = value
  }
  set('temperature', params.temperature)
  set('topP', params.topP)
  set('maxOutputTokens', params.maxTokens)
  set('stopSequences', params.stop)
  set('seed', params.seed)
  if (isRecord(params.responseFormat)) {
    for (const camel of RESPONSE_FORMAT) set(camel, params.responseFormat[camel])
  }
  out[configKey] =
    Object.keys(config).length > 0 || origConfig !== undefined
      ? sameOrOriginal(config, origConfig)
      : undefined

  if (params.toolChoice !== undefined) {
    const toolKey = key('toolConfig')
    const toolConfig: JsonObject = isRecord(out[toolKey]) ? { ...(out[toolKey] as JsonObject) } : {}
    const fccKey = keyIn(toolConfig, 'functionCallingConfig')
    const fcc = isRecord(toolConfig[fccKey]) ? (toolConfig[fccKey] as JsonObject) : {}
    toolConfig[fccKey] = { ...fcc, ...functionCallingOf(params.toolChoice) }
    out[toolKey] = sameOrOriginal(toolConfig, orig[toolKey])
  }
  const model = normalized.model || undefined
  const url =
    model === undefined
      ? original.url
      : writeGeminiUrl(original.url, { model, stream: params.stream === true })
  return { ...original, url, body: orderedBody(out, Object.keys(orig)) }
}

function functionCallingOf(choice: JsonValue): JsonObject {
  if (choice === 'none') return { mode: 'NONE' }
  if (choice === 'required') return { mode: 'ANY' }
  if (isRecord(choice) && typeof choice.name === 'string')
    return { mode: 'ANY', allowedFunctionNames: [choice.name] }
  return { mode: 'AUTO' }
}

function writeSystem(parts: Part[], original: JsonValue | undefined): JsonValue | undefined {
  if (parts.length === 0) return undefined
  if (original !== undefined && sameJson(parts, readGeminiSystem(original))) return original
  const pool = new ReusePool<JsonValue>()
  for (const part of isRecord(original) ? arr(original.parts) : []) {
    const [read] = readGeminiSystem({ parts: [part] })
    if (read) pool.add(read, part)
  }
  const written = parts.map((p) => pool.take(p) ?? writeGeminiPart(p, false))
  return isRecord(original) ? { ...original, parts: written } : { parts: written }
}

function writeContents(
  messages: NormalizedRequest['messages'],
  original: JsonValue | undefined,
): JsonValue[] {
  const turnPool = new ReusePool<JsonValue>()
  const partPool = new ReusePool<JsonValue>()
  for (const turn of readGeminiContents(original)) {
    turnPool.add(turn.messages, turn.wire)
    for (const block of turn.blocks) partPool.add(block.normalized, block.wire)
  }
  // Ids crashlab made up for calls without one stay off the wire, on the calls and on their answers.
  let synthetic = new Set<string>()
  return groupTurns(messages).map((turn) => {
    const made = new Set<string>()
    let calls = 0
    for (const part of turn.messages.flatMap((m) => (m.role === 'tool' ? [] : m.parts))) {
      if (part.type !== 'tool_call') continue
      if (part.id === syntheticCallId(part.name, calls)) made.add(part.id)
      calls++
    }
    const answered = synthetic
    if (turn.role === 'assistant') synthetic = made
    const kept = turnPool.take(turn.messages)
    if (kept !== undefined) return kept
    const parts: JsonValue[] = []
    for (const message of turn.messages) {
      if (message.role === 'tool') {
        const result = message.parts.find((p) => p.type === 'tool_result')
        if (result)
          parts.push(
            partPool.take({ tool: message.parts }) ?? writeGeminiPart(result, !answered.has(result.id)),
          )
        continue
      }
      for (const part of message.parts) {
        parts.push(
          partPool.take(part) ?? writeGeminiPart(part, !(part.type === 'tool_call' && made.has(part.id))),
        )
      }
    }
    return { role: turn.role === 'assistant' ? 'model' : 'user', parts }
  })
}

/**
 * The tools list: unchanged, the original; else each declaration slot of the original filled in
 * order with the normalized tools (merged onto the original declaration of their name), Google-run
 * tools left where they were, new declarations added to the last entry that declares functions.
 */
function writeTools(tools: ToolDefinition[], original: JsonValue | undefined): JsonValue | undefined {
  if (sameJson(tools, readGeminiTools(original)))
    return tools.length > 0 || original !== undefined ? original : undefined
  const entries = arr(original)
  const byName = new Map<string, JsonObject>()
  for (const entry of entries) {
    if (!isRecord(entry)) continue
    for (const decl of arr(field(entry, 'functionDeclarations'))) {
      if (isRecord(decl)) byName.set(readDeclaration(decl).name, decl)
    }
  }
  const queue = [...tools]
  const out: JsonValue[] = []
  let last: JsonValue[] | undefined
  for (const entry of entries) {
    const declKey = isRecord(entry) ? keyIn(entry, 'functionDeclarations') : ''
    if (!isRecord(entry) || !Array.isArray(entry[declKey])) {
      out.push(entry)
      continue
    }
    const decls: JsonValue[] = []
    for (let i = 0; i < (entry[declKey] as JsonValue[]).length && queue.length > 0; i++) {
      const next = queue.shift()!
      decls.push(writeDeclaration(next, byName.get(next.name)))
    }
    if (decls.length === 0) continue
    out.push({ ...entry, [declKey]: decls })
    last = decls
  }
  const rest = queue.map((tool) => writeDeclaration(tool, byName.get(tool.name)))
  if (rest.length > 0 && last) last.push(...rest)
  else if (rest.length > 0) out.push({ functionDeclarations: rest })
  return out.length > 0 || original !== undefined ? out : undefined
}

function writeDeclaration(tool: ToolDefinition, base: JsonObject | undefined): JsonObject {
  const out: JsonObject = { ...base, name: tool.name }
  if (tool.description !== undefined) out.description = tool.description
  else delete out.description
  // The schema goes back where the client put it: JSON Schema or the API's OpenAPI subset.
  const schemaKey =
    base && field(base, 'parametersJsonSchema') !== undefined
      ? keyIn(base, 'parametersJsonSchema')
      : 'parameters'
  if (Object.keys(tool.parameters).length > 0) out[schemaKey] = tool.parameters
  else delete out[schemaKey]
  return out
}
