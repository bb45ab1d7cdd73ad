import type { JsonObject, JsonValue } from '../../case/schema/json.ts'
import type { Part, ToolCallPart, ToolResultPart } from '../../case/schema/normalized.ts'
import { isRecord, str } from './anthropic-gemini-values.ts'
import { mediaFromBase64, mediaFromRef } from './media.ts'

/**
 * Gemini parts ⇄ normalized parts. The REST API reads proto JSON, which accepts both lowerCamel and
 * snake_case names (`inlineData` / `inline_data`): the SDKs send camel, the docs' curl examples often
 * snake, so every reader takes both and writers send camel.
 */

/**
 * The snake_case spelling of a lowerCamel field name.
 *
 * @example
 * snakeName('systemInstruction') // 'system_instruction'
 */
export function snakeName(camel: string): string {
  // Called for every field of every part on the request path: the names are few, so remember them.
  let snake = SNAKE.get(camel)
  if (snake === undefined) {
    snake = camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
    SNAKE.set(camel, snake)
  }
  return snake
}

const SNAKE = new Map<string, string>()

/**
 * A field by its lowerCamel name, or by its snake_case one.
 *
 * @example
 * field({ inline_data: { data: 'AA==' } }, 'inlineData') // { data: 'AA==' }
 */
export function field(obj: JsonObject, camel: string): JsonValue | undefined {
  const value = obj[camel]
  return value !== undefined ? value : obj[snakeName(camel)]
}

/**
 * The name a field has in `obj` (camel or snake), or the camel name when it has neither, so a
 * rewritten body keeps the client's spelling.
 *
 * @example
 * keyIn({ generation_config: {} }, 'generationConfig') // 'generation_config'
 */
export function keyIn(obj: JsonObject, camel: string): string {
  const snake = snakeName(camel)
  return obj[camel] === undefined && obj[snake] !== undefined ? snake : camel
}

/**
 * The tool-call id of a Gemini `functionCall` that carries none: the function's name and its position
 * among the calls of its turn. A response and the request that later echoes it agree on it.
 *
 * @example
 * syntheticCallId('get_order', 0) // 'get_order_0'
 */
export function syntheticCallId(name: string, position: number): string {
  return `${name}_${position}`
}

/**
 * The normalized part of a Gemini part (text, thought, inline or file data, function call); a
 * function response and parts crashlab does not model (executable code, code results) give undefined.
 * `position` numbers the function calls of the turn, for calls without an id.
 *
 * @example
 * readGeminiPart({ text: 'Planning…', thought: true }, 0) // { type: 'reasoning', text: 'Planning…' }
 */
export function readGeminiPart(part: unknown, position: number): Part | undefined {
  if (!isRecord(part)) return undefined
  const call = field(part, 'functionCall')
  if (isRecord(call)) {
    const name = str(call.name) ?? ''
    return {
      type: 'tool_call',
      id: str(call.id) ?? syntheticCallId(name, position),
      name,
      args: call.args ?? {},
    }
  }
  const inline = field(part, 'inlineData')
  if (isRecord(inline)) {
    return mediaFromBase64(
      str(field(inline, 'mimeType')) ?? 'application/octet-stream',
      str(inline.data) ?? '',
    )
  }
  const file = field(part, 'fileData')
  if (isRecord(file)) {
    const uri = str(field(file, 'fileUri')) ?? ''
    return {
      ...mediaFromRef(uri, str(field(file, 'mimeType')) ?? 'application/octet-stream'),
      ...mimeOf(file),
    }
  }
  if (typeof part.text === 'string') {
    return part.thought === true ? { type: 'reasoning', text: part.text } : { type: 'text', text: part.text }
  }
  return undefined
}

/** A file's declared media type wins over one guessed from its URI. */
function mimeOf(file: JsonObject): { mediaType?: string } {
  const mime = str(field(file, 'mimeType'))
  return mime === undefined ? {} : { mediaType: mime }
}

/**
 * The tool result of a `functionResponse`: its `response` as JSON text, an error when the response
 * holds only an `error` key (the API's convention for failed calls). The id comes from the caller,
 * which knows the calls it answers.
 *
 * @example
 * readFunctionResponse({ name: 'get_order', response: { total: 49 } }, 'get_order_0')
 * // { type: 'tool_result', id: 'get_order_0', name: 'get_order', content: '{"total":49}', isError: false }
 */
export function readFunctionResponse(response: JsonObject, id: string): ToolResultPart {
  const value = response.response ?? {}
  return {
    type: 'tool_result',
    id,
    name: str(response.name) ?? '',
    content: JSON.stringify(value),
    isError: isRecord(value) && value.error !== undefined && value.output === undefined,
  }
}

/**
 * The Gemini part for a normalized part. `withId` says whether a function call or response names its
 * id on the wire (ids crashlab made up are left out, as the API left them out). Media without a
 * reference cannot give its bytes back and is written as empty inline data of its type.
 *
 * @example
 * writeGeminiPart({ type: 'reasoning', text: 'Planning…' }, true) // { text: 'Planning…', thought: true }
 */
export function writeGeminiPart(part: Part, withId: boolean): JsonObject {
  switch (part.type) {
    case 'text':
      return { text: part.text }
    case 'reasoning':
      return { text: part.text, thought: true }
    case 'media':
      return part.ref === undefined
        ? { inlineData: { mimeType: part.mediaType, data: '' } }
        : { fileData: { mimeType: part.mediaType, fileUri: part.ref } }
    case 'tool_call':
      return { functionCall: { ...(withId ? { id: part.id } : {}), name: part.name, args: argsOf(part) } }
    case 'tool_result':
      return {
        functionResponse: {
          ...(withId ? { id: part.id } : {}),
          name: part.name ?? '',
          response: responseOf(part),
        },
      }
  }
}

function argsOf(call: ToolCallPart): JsonValue {
  return isRecord(call.args) ? call.args : {}
}

/** `response` must be an object: text that is not one is sent under `output` (or `error`). */
function responseOf(result: ToolResultPart): JsonObject {
  let value: JsonValue = result.content
  try {
    value = JSON.parse(result.content) as JsonValue
  } catch {
    // plain text
  }
  if (isRecord(value)) return value
  return result.isError ? { error: value } : { output: value }
}
