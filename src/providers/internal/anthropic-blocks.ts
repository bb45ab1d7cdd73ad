import type { JsonObject } from '../../case/schema/json.ts'
import type { MediaPart, Part } from '../../case/schema/normalized.ts'
import { arr, isRecord, str } from './anthropic-gemini-values.ts'
import { mediaFromBase64, mediaFromBytes, mediaFromRef } from './media.ts'

/**
 * Anthropic content blocks ⇄ normalized parts, for requests and responses alike. Tool results are
 * not here: they need the conversation around them (see anthropic-read-messages.ts).
 */

/**
 * The part a content block stands for, or undefined for a block crashlab does not model (server tool
 * blocks, search results, container uploads): those stay in the wire only.
 *
 * @example
 * blockToPart({ type: 'thinking', thinking: 'Hmm', signature: 'EqQB…' }) // { type: 'reasoning', text: 'Hmm' }
 */
export function blockToPart(block: unknown): Part | undefined {
  if (typeof block === 'string') return { type: 'text', text: block }
  if (!isRecord(block)) return undefined
  switch (block.type) {
    case 'text':
      return { type: 'text', text: str(block.text) ?? '' }
    case 'thinking':
      return { type: 'reasoning', text: str(block.thinking) ?? '' }
    case 'redacted_thinking':
      // The data is encrypted reasoning: it says nothing readable, only that reasoning happened.
      return { type: 'reasoning', text: '', opaque: true }
    case 'tool_use':
      return {
        type: 'tool_call',
        id: str(block.id) ?? '',
        name: str(block.name) ?? '',
        args: block.input === undefined ? {} : block.input,
      }
    case 'image':
      return sourceToMedia(block.source, 'image/*')
    case 'document':
      return sourceToMedia(block.source, 'application/pdf')
    default:
      return undefined
  }
}

function sourceToMedia(source: unknown, fallback: string): MediaPart | undefined {
  if (!isRecord(source)) return undefined
  const mediaType = str(source.media_type) ?? fallback
  switch (source.type) {
    case 'base64':
      return mediaFromBase64(mediaType, str(source.data) ?? '')
    case 'text':
      return mediaFromBytes(
        mediaType === fallback ? 'text/plain' : mediaType,
        Buffer.from(str(source.data) ?? ''),
      )
    case 'content': {
      // A document made of content blocks: measured by its text, the part a model reads.
      const text =
        typeof source.content === 'string'
          ? source.content
          : arr(source.content)
              .map((b) => (isRecord(b) ? (str(b.text) ?? '') : ''))
              .join('\n')
      return mediaFromBytes('text/plain', Buffer.from(text))
    }
    case 'url':
      return mediaFromRef(str(source.url) ?? '', fallback)
    case 'file':
      return { type: 'media', mediaType: fallback, bytes: null, ref: str(source.file_id) ?? '' }
    default:
      return undefined
  }
}

/**
 * The content block for a part, for a request or a response being written. A media placeholder
 * without a reference cannot give its bytes back: it is written as an empty base64 source of its
 * media type, and a rewritten request keeps the original block instead whenever the media is unchanged.
 *
 * @example
 * partToBlock({ type: 'reasoning', text: '', opaque: true }) // { type: 'redacted_thinking', data: '' }
 */
export function partToBlock(part: Part): JsonObject {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text }
    case 'reasoning':
      return part.opaque
        ? { type: 'redacted_thinking', data: part.text }
        : { type: 'thinking', thinking: part.text, signature: '' }
    case 'tool_call':
      return { type: 'tool_use', id: part.id, name: part.name, input: isRecord(part.args) ? part.args : {} }
    case 'media':
      return mediaToBlock(part)
    case 'tool_result':
      return toolResultBlock([part])
  }
}

function mediaToBlock(part: MediaPart): JsonObject {
  const type = part.mediaType.startsWith('image/') ? 'image' : 'document'
  let source: JsonObject
  if (part.ref !== undefined && /^https?:\/\//.test(part.ref)) source = { type: 'url', url: part.ref }
  else if (part.ref !== undefined) source = { type: 'file', file_id: part.ref }
  else source = { type: 'base64', media_type: part.mediaType, data: '' }
  return { type, source }
}

/**
 * A `tool_result` block from a tool message's parts: the result, then any media it returned. Text
 * only is sent as a string, as most clients do.
 *
 * @example
 * toolResultBlock([{ type: 'tool_result', id: 'toolu_1', content: '42', isError: false }])
 * // { type: 'tool_result', tool_use_id: 'toolu_1', content: '42' }
 */
export function toolResultBlock(parts: readonly Part[]): JsonObject {
  const result = parts.find((p) => p.type === 'tool_result')
  const media = parts.filter((p) => p.type === 'media')
  const block: JsonObject = { type: 'tool_result', tool_use_id: result?.id ?? '' }
  const text = result?.content ?? ''
  // An empty text block is refused by the API: media alone goes without one.
  block.content =
    media.length === 0 ? text : [...(text ? [{ type: 'text', text }] : []), ...media.map(mediaToBlock)]
  if (result?.isError) block.is_error = true
  return block
}

/**
 * True for a text block with nothing else on it, which a message may send as a bare string.
 *
 * @example
 * isPlainText({ type: 'text', text: 'hi' }) // true
 */
export function isPlainText(block: unknown): block is { type: 'text'; text: string } {
  return (
    isRecord(block) &&
    block.type === 'text' &&
    typeof block.text === 'string' &&
    Object.keys(block).length === 2
  )
}
