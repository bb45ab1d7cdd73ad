import type { SseChunk } from '../../src/case/schema/step.ts'
import {
  anthropicJsonChunks,
  contentChunks,
  responsesTextChunks,
  toolArgumentChunks,
} from './corpus/run-builder.ts'

/**
 * The stream shapes secrets are split across, and how a reader puts a stream back together: a secret
 * cut into two chunks can leak although neither chunk holds 12 characters of it, so leak searches
 * also run over the assembled text of every stream.
 */
export interface StreamShape {
  id: string
  /** The assembled text around `text`, and the span of the secret inside it. */
  wrap(text: string): { whole: string; start: number; end: number }
  chunks(pieces: string[]): SseChunk[]
}

function around(before: string, text: string, after: string) {
  return { whole: `${before}${text}${after}`, start: before.length, end: before.length + text.length }
}

function jsonAround(text: string) {
  const whole = JSON.stringify({ cmd: `echo "${text}"` })
  const inner = JSON.stringify(text).slice(1, -1)
  const start = whole.indexOf(inner)
  return { whole, start, end: start + inner.length }
}

export const STREAM_SHAPES: readonly StreamShape[] = [
  {
    id: 'chat-content',
    wrap: (t) => around('Sure, here it is: ', t, ' — keep it safe.'),
    chunks: contentChunks,
  },
  { id: 'chat-tool-arguments', wrap: jsonAround, chunks: toolArgumentChunks },
  { id: 'anthropic-input-json', wrap: jsonAround, chunks: anthropicJsonChunks },
  { id: 'responses-output-text', wrap: (t) => around('Token:\n', t, '\nDone.'), chunks: responsesTextChunks },
]

/** The texts a stream assembles to: chat content, tool arguments, Anthropic partial JSON, Responses deltas. */
export function assembleStream(chunks: readonly SseChunk[]): string[] {
  const texts = new Map<string, string>()
  const add = (k: string, v: unknown) => {
    if (typeof v === 'string') texts.set(k, (texts.get(k) ?? '') + v)
  }
  for (const c of chunks) {
    // biome-ignore lint/suspicious/noExplicitAny: chunk payloads of several wire APIs, read defensively
    let d: any
    try {
      d = JSON.parse(c.data)
    } catch {
      add('raw', c.data)
      continue
    }
    const delta = d?.choices?.[0]?.delta
    add('content', delta?.content)
    add('arguments', delta?.tool_calls?.[0]?.function?.arguments)
    add('partial_json', d?.delta?.partial_json)
    add('text', d?.delta?.text)
    if (typeof d?.delta === 'string') add('delta', d.delta)
  }
  return [...texts.values()]
}

/** The assembled texts of every `chunks` array anywhere in a JSON document. */
export function assembledTexts(doc: unknown): string[] {
  const out: string[] = []
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) {
      for (const x of v) walk(x)
      return
    }
    if (v === null || typeof v !== 'object') return
    for (const [k, x] of Object.entries(v)) {
      if (k === 'chunks' && Array.isArray(x) && x.every((c) => typeof c?.data === 'string'))
        out.push(...assembleStream(x as SseChunk[]))
      else walk(x)
    }
  }
  walk(doc)
  return out
}
