import type { SseChunk } from '../case/schema/step.ts'

/**
 * Server-sent events, as the providers frame them: `event:` and `data:` lines, a blank line between
 * events. OpenAI chat streams carry no `event:` line; Anthropic and OpenAI Responses streams need one.
 */

/**
 * An incremental SSE parser: feed it text as it arrives, get whole events out. Comment lines (`:`) are
 * dropped; multi-line `data:` is joined with `\n`, as the SSE standard says.
 *
 * @example
 * const parser = new SseParser()
 * parser.push('data: {"a":1}\n\nda', 5) // [{ data: '{"a":1}', atMs: 5 }]
 * parser.push('ta: [DONE]\n\n', 9)      // [{ data: '[DONE]', atMs: 9 }]
 */
export class SseParser {
  private buffer = ''
  private event: string | undefined
  private id: string | undefined
  private data: string[] = []

  /** Parses `text` received `atMs` after the response started; returns the events it completed. */
  push(text: string, atMs = 0): SseChunk[] {
    this.buffer += text
    const out: SseChunk[] = []
    let start = 0
    for (;;) {
      const nl = this.buffer.indexOf('\n', start)
      if (nl === -1) break
      let line = this.buffer.slice(start, nl)
      start = nl + 1
      if (line.endsWith('\r')) line = line.slice(0, -1)
      this.line(line, atMs, out)
    }
    this.buffer = this.buffer.slice(start)
    return out
  }

  /** Ends the stream: an event cut before its blank line is returned (a cut stream keeps what arrived). */
  end(atMs = 0): SseChunk[] {
    const out: SseChunk[] = []
    if (this.buffer.length > 0) {
      this.line(this.buffer.endsWith('\r') ? this.buffer.slice(0, -1) : this.buffer, atMs, out)
      this.buffer = ''
    }
    this.dispatch(atMs, out)
    return out
  }

  private line(line: string, atMs: number, out: SseChunk[]): void {
    if (line === '') {
      this.dispatch(atMs, out)
      return
    }
    if (line.startsWith(':')) return
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'data') this.data.push(value)
    else if (field === 'event') this.event = value
    else if (field === 'id') this.id = value
  }

  private dispatch(atMs: number, out: SseChunk[]): void {
    if (this.data.length > 0) {
      const chunk: SseChunk = { data: this.data.join('\n'), atMs }
      if (this.event !== undefined) chunk.event = this.event
      if (this.id !== undefined) chunk.id = this.id
      out.push(chunk)
    }
    this.data = []
    this.event = undefined
    this.id = undefined
  }
}

/**
 * Parses a whole SSE body at once.
 *
 * @example
 * parseSse('event: ping\ndata: {}\n\n') // [{ event: 'ping', data: '{}', atMs: 0 }]
 */
export function parseSse(text: string): SseChunk[] {
  const parser = new SseParser()
  return [...parser.push(text), ...parser.end()]
}

/**
 * Frames one event as a provider sends it.
 *
 * @example
 * formatSse({ event: 'message_stop', data: '{"type":"message_stop"}', atMs: 0 })
 * // 'event: message_stop\ndata: {"type":"message_stop"}\n\n'
 */
export function formatSse(chunk: Pick<SseChunk, 'event' | 'id' | 'data'>): string {
  let out = ''
  if (chunk.event !== undefined) out += `event: ${chunk.event}\n`
  if (chunk.id !== undefined) out += `id: ${chunk.id}\n`
  for (const line of chunk.data.split('\n')) out += `data: ${line}\n`
  return `${out}\n`
}

/**
 * The JSON payload of an event, or undefined when its data is not JSON (`[DONE]`, a cut chunk).
 *
 * @example
 * sseJson({ data: '{"type":"ping"}', atMs: 0 }) // { type: 'ping' }
 */
export function sseJson(chunk: Pick<SseChunk, 'data'>): unknown {
  try {
    return JSON.parse(chunk.data)
  } catch {
    return undefined
  }
}
