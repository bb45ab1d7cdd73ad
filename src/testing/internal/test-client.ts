import type { JsonValue } from '../../case/schema/json.ts'
import type { SseChunk } from '../../case/schema/step.ts'
import { SseParser } from '../../providers/sse.ts'

/**
 * A plain-`fetch` client for the scripted provider's own tests: the SDKs are tested elsewhere, and
 * here every byte the server sends must be seen as it is, with no SDK in between.
 */

/** One request of each API, plain or streamed, with the same conversation. */
export interface ApiCall {
  path: string
  body: JsonValue
}

const SYSTEM = 'You are a refund assistant. Never refund more than the order total.'
const TOOL = {
  name: 'get_order',
  description: 'Look up an order by id',
  parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
}

/**
 * A model call of `api` asking `question`.
 *
 * @example
 * const { path, body } = apiCall('anthropic-messages', true, 'Refund A17')
 */
export function apiCall(
  api: 'openai-chat' | 'openai-responses' | 'anthropic-messages' | 'gemini',
  stream: boolean,
  question = 'Refund my order A17, it arrived broken',
): ApiCall {
  switch (api) {
    case 'openai-chat':
      return {
        path: '/v1/chat/completions',
        body: {
          model: 'gpt-4o-mini',
          messages: [
            { role: 'system', content: SYSTEM },
            { role: 'user', content: question },
          ],
          tools: [{ type: 'function', function: TOOL }],
          ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
        },
      }
    case 'openai-responses':
      return {
        path: '/v1/responses',
        body: {
          model: 'gpt-4.1-mini',
          instructions: SYSTEM,
          input: [{ role: 'user', content: question }],
          tools: [{ type: 'function', ...TOOL, strict: false }],
          ...(stream ? { stream: true } : {}),
        },
      }
    case 'anthropic-messages':
      return {
        path: '/v1/messages',
        body: {
          model: 'claude-sonnet-4-5',
          max_tokens: 256,
          system: SYSTEM,
          messages: [{ role: 'user', content: question }],
          tools: [{ name: TOOL.name, description: TOOL.description, input_schema: TOOL.parameters }],
          ...(stream ? { stream: true } : {}),
        },
      }
    case 'gemini':
      return {
        path: `/v1beta/models/gemini-2.5-flash:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
        body: {
          contents: [{ role: 'user', parts: [{ text: question }] }],
          systemInstruction: { parts: [{ text: SYSTEM }] },
          tools: [{ functionDeclarations: [TOOL] }],
        },
      }
  }
}

/**
 * POSTs JSON to the provider.
 *
 * @example
 * const res = await post(provider.url, apiCall('openai-chat', false))
 */
export function post(
  origin: string,
  call: ApiCall,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(`${origin}${call.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(call.body),
    ...(signal ? { signal } : {}),
  })
}

/** A streamed body as it arrived: the raw text, its events, and when each event arrived. */
export interface ReadStream {
  text: string
  events: SseChunk[]
  /** Set when the body ended with an error (a cut stream) rather than properly. */
  error: unknown
}

/**
 * Reads a streamed body to its end (or its error), stamping each event with its arrival time in ms
 * after the read started.
 *
 * @example
 * const { events } = await readStream(res)
 */
export async function readStream(res: Response): Promise<ReadStream> {
  const parser = new SseParser()
  const decoder = new TextDecoder()
  const events: SseChunk[] = []
  const start = performance.now()
  let text = ''
  let error: unknown
  const reader = res.body!.getReader()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      const piece = decoder.decode(value, { stream: true })
      text += piece
      events.push(...parser.push(piece, performance.now() - start))
    }
  } catch (err) {
    error = err
  }
  events.push(...parser.end(performance.now() - start))
  return { text, events, error }
}

/**
 * The error code under a failed fetch (`ECONNRESET`, `UND_ERR_SOCKET`), looked up along its causes.
 *
 * @example
 * await post(url, call).catch(errorCode) // 'ECONNRESET'
 */
export function errorCode(err: unknown): string | undefined {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (typeof e.code === 'string') return e.code
  }
  return undefined
}

/**
 * The events without their arrival times, to compare with what an adapter wrote.
 *
 * @example
 * expect(withoutTimes(events)).toEqual(withoutTimes(adapter.writeStream(response, options)))
 */
export function withoutTimes(events: readonly SseChunk[]): Array<Omit<SseChunk, 'atMs'>> {
  return events.map(({ atMs: _, ...rest }) => rest)
}
