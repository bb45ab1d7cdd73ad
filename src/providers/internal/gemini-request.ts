import type { JsonObject, JsonValue } from '../../case/schema/json.ts'
import type { NormalizedRequest, Params, ToolDefinition } from '../../case/schema/normalized.ts'
import type { WireRequest } from '../../case/schema/step.ts'
import { arr, isRecord, num, str } from './anthropic-gemini-values.ts'
import { field, keyIn, snakeName } from './gemini-parts.ts'
import { readGeminiContents, readGeminiSystem } from './gemini-read-contents.ts'
import { parseGeminiUrl } from './gemini-url.ts'

/**
 * Gemini `generateContent` request → normalized request. The model and the streaming switch come from
 * the URL. Body fields without a neutral name land in `params.extra` under their wire names
 * (`safetySettings`, `cachedContent`, ...), and so does what is left of a partly described field:
 * `generationConfig` without the sampling fields (`topK`, `thinkingConfig`, ...), `toolConfig`
 * without the function-calling mode.
 */

/** Top-level fields the normalized request describes in full or in part (lowerCamel names). */
const DESCRIBED = ['contents', 'systemInstruction', 'tools', 'toolConfig', 'generationConfig']
/**
 * The generationConfig fields that make up `params.responseFormat`, kept together under their wire
 * names since they only mean something together.
 *
 * @example
 * RESPONSE_FORMAT.includes('responseSchema') // true
 */
export const RESPONSE_FORMAT = ['responseMimeType', 'responseSchema', 'responseJsonSchema']

/**
 * The normalized form of a Gemini request.
 *
 * @example
 * normalizeGeminiRequest({ method: 'POST', url: 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent', headers: {}, body: { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] } })
 * // { model: 'gemini-2.5-flash', system: [], messages: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }], tools: [], params: {} }
 */
export function normalizeGeminiRequest(wire: WireRequest): NormalizedRequest {
  const body = isRecord(wire.body) ? wire.body : {}
  const call = parseGeminiUrl(wire.url)
  const params = readParams(body)
  if (call?.stream) params.stream = true
  return {
    model: call?.model ?? '',
    system: readGeminiSystem(field(body, 'systemInstruction')),
    messages: readGeminiContents(body.contents).flatMap((turn) => turn.messages),
    tools: readGeminiTools(field(body, 'tools')),
    params,
  }
}

/**
 * The declared functions of every tool entry, in order. Other tools (Google Search, code execution,
 * URL context) run at Google and stay in the wire body only.
 *
 * @example
 * readGeminiTools([{ functionDeclarations: [{ name: 'get_order', parameters: { type: 'object' } }] }, { googleSearch: {} }])
 * // [{ name: 'get_order', parameters: { type: 'object' } }]
 */
export function readGeminiTools(tools: unknown): ToolDefinition[] {
  return arr(tools).flatMap((tool) =>
    isRecord(tool) ? arr(field(tool, 'functionDeclarations')).map(readDeclaration) : [],
  )
}

/**
 * One function declaration. The schema is `parametersJsonSchema` (JSON Schema) or `parameters` (the
 * API's OpenAPI subset), as sent; a function without parameters has the empty schema.
 *
 * @example
 * readDeclaration({ name: 'beep' }) // { name: 'beep', parameters: {} }
 */
export function readDeclaration(declaration: JsonValue): ToolDefinition {
  const decl = isRecord(declaration) ? declaration : {}
  const schema = field(decl, 'parametersJsonSchema') ?? decl.parameters
  const def: ToolDefinition = { name: str(decl.name) ?? '', parameters: isRecord(schema) ? schema : {} }
  const description = str(decl.description)
  if (description !== undefined) def.description = description
  return def
}

function readParams(body: JsonObject): Params {
  const params: Params = {}
  const extra: Record<string, JsonValue> = {}
  const described = DESCRIBED.flatMap((k) => [k, snakeName(k)])
  // An own `__proto__` key (JSON.parse makes one) would replace `extra`'s prototype; a cassette drops it anyway.
  for (const [key, value] of Object.entries(body))
    if (!described.includes(key) && key !== '__proto__') extra[key] = value

  const config = field(body, 'generationConfig')
  if (isRecord(config)) {
    const left = readGenerationConfig(config, params)
    if (Object.keys(left).length > 0) extra[keyIn(body, 'generationConfig')] = left
  } else if (config !== undefined) extra[keyIn(body, 'generationConfig')] = config

  const toolConfig = field(body, 'toolConfig')
  if (isRecord(toolConfig)) {
    const left = readToolConfig(toolConfig, params)
    if (Object.keys(left).length > 0) extra[keyIn(body, 'toolConfig')] = left
  } else if (toolConfig !== undefined) extra[keyIn(body, 'toolConfig')] = toolConfig

  if (Object.keys(extra).length > 0) params.extra = extra
  return params
}

/** Fills the sampling params from a generationConfig; returns what is left of it. */
function readGenerationConfig(config: JsonObject, params: Params): JsonObject {
  const left: JsonObject = { ...config }
  const take = (camel: string): JsonValue | undefined => {
    const key = keyIn(config, camel)
    const value = config[key]
    delete left[key]
    return value
  }
  const put = <K extends keyof Params>(
    camel: string,
    name: K,
    value: Params[K] | undefined,
    raw: JsonValue | undefined,
  ) => {
    if (value !== undefined) params[name] = value
    else if (raw !== undefined) left[keyIn(config, camel)] = raw // a value of the wrong type is kept as sent
  }
  let raw = take('temperature')
  put('temperature', 'temperature', num(raw), raw)
  raw = take('topP')
  put('topP', 'topP', num(raw), raw)
  raw = take('maxOutputTokens')
  put('maxOutputTokens', 'maxTokens', Number.isInteger(raw) ? (raw as number) : undefined, raw)
  raw = take('stopSequences')
  put('stopSequences', 'stop', isStrings(raw) ? raw : undefined, raw)
  raw = take('seed')
  put('seed', 'seed', Number.isInteger(raw) ? (raw as number) : undefined, raw)
  const format: JsonObject = {}
  for (const camel of RESPONSE_FORMAT) {
    const value = take(camel)
    if (value !== undefined) format[camel] = value
  }
  if (Object.keys(format).length > 0) params.responseFormat = format
  return left
}

function isStrings(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((s) => typeof s === 'string')
}

/**
 * Fills `toolChoice` from `functionCallingConfig` when its mode says one of auto / none / required /
 * one named function; returns what is left of the toolConfig (the whole config when the mode says
 * something else, such as several allowed functions or `VALIDATED`).
 */
function readToolConfig(config: JsonObject, params: Params): JsonObject {
  const fccKey = keyIn(config, 'functionCallingConfig')
  const fcc = config[fccKey]
  if (!isRecord(fcc)) return config
  const namesKey = keyIn(fcc, 'allowedFunctionNames')
  const names = isStrings(fcc[namesKey]) ? (fcc[namesKey] as string[]) : undefined
  let choice: JsonValue | undefined
  if (fcc.mode === 'AUTO' && names === undefined) choice = 'auto'
  else if (fcc.mode === 'NONE' && names === undefined) choice = 'none'
  else if (fcc.mode === 'ANY' && names === undefined) choice = 'required'
  else if (fcc.mode === 'ANY' && names?.length === 1) choice = { name: names[0]! }
  if (choice === undefined) return config
  params.toolChoice = choice
  const left: JsonObject = { ...config }
  const fccLeft: JsonObject = { ...fcc }
  delete fccLeft.mode
  delete fccLeft[namesKey]
  if (Object.keys(fccLeft).length > 0) left[fccKey] = fccLeft
  else delete left[fccKey]
  return left
}
