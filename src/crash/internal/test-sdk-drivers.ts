import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import OpenAI from 'openai'
import type { JsonValue } from '../../case/schema/json.ts'
import type { NormalizedResponse } from '../../case/schema/normalized.ts'
import { getAdapter } from '../../providers/registry.ts'
import type { ProviderAdapter, ProviderId } from '../../providers/types.ts'

/**
 * Test support: one driver per wire API that makes a call with the real SDK client and reports what the
 * SDK surfaced in one shape (text, refusal, finish reason as the SDK reports it, and the error, if any,
 * with the text that arrived before it).
 */

/** What an SDK surfaced for one call. */
export interface Observed {
  text: string
  refusal: string
  /** The finish reason as the SDK reports it (`stop`, `incomplete:max_output_tokens`, `MAX_TOKENS`…). */
  finish: string | null
  error: unknown
}

export interface CallOptions {
  streaming: boolean
  maxRetries: number
  /** A custom fetch; the global (MSW-intercepted) one when left out. */
  fetch?: typeof fetch
}

export interface Driver {
  id: ProviderId
  adapter: ProviderAdapter
  model: string
  url(streaming: boolean): string
  requestBody(streaming: boolean): JsonValue
  call(options: CallOptions): Promise<Observed>
}

export const BASE = 'http://crash.test'
const PROMPT = 'Refund order A17.'

/** The recorded answer every fault test starts from. */
export function recordedResponse(model: string): NormalizedResponse {
  return {
    model,
    requestId: null,
    parts: [{ type: 'text', text: 'The order A17 was refunded in full: 49.00 EUR, back on your card.' }],
    toolCalls: [],
    finishReason: 'stop',
    usage: { inputTokens: 21, outputTokens: 17 },
  }
}

async function observe(run: (o: Observed) => Promise<void>): Promise<Observed> {
  const o: Observed = { text: '', refusal: '', finish: null, error: undefined }
  try {
    await run(o)
  } catch (err) {
    o.error = err
  }
  return o
}

const openaiClient = (o: CallOptions) =>
  new OpenAI({ apiKey: 'sk-test', baseURL: `${BASE}/v1`, maxRetries: o.maxRetries, fetch: o.fetch })

export const chatDriver: Driver = {
  id: 'openai-chat',
  adapter: getAdapter('openai-chat'),
  model: 'gpt-5-mini',
  url: () => `${BASE}/v1/chat/completions`,
  requestBody: (stream) => ({ model: 'gpt-5-mini', messages: [{ role: 'user', content: PROMPT }], stream }),
  call: (options) =>
    observe(async (o) => {
      const client = openaiClient(options)
      const messages = [{ role: 'user' as const, content: PROMPT }]
      if (!options.streaming) {
        const res = await client.chat.completions.create({ model: 'gpt-5-mini', messages })
        const choice = res.choices[0]!
        o.text = choice.message.content ?? ''
        o.refusal = choice.message.refusal ?? ''
        o.finish = choice.finish_reason
        return
      }
      const stream = await client.chat.completions.create({ model: 'gpt-5-mini', messages, stream: true })
      for await (const chunk of stream) {
        const choice = chunk.choices[0]
        o.text += choice?.delta.content ?? ''
        o.refusal += choice?.delta.refusal ?? ''
        if (choice?.finish_reason) o.finish = choice.finish_reason
      }
    }),
}

function responsesFinish(r: { status?: string | null; incomplete_details?: { reason?: string } | null }) {
  return r.status === 'incomplete' ? `incomplete:${r.incomplete_details?.reason}` : (r.status ?? null)
}

export const responsesDriver: Driver = {
  id: 'openai-responses',
  adapter: getAdapter('openai-responses'),
  model: 'gpt-5-mini',
  url: () => `${BASE}/v1/responses`,
  requestBody: (stream) => ({ model: 'gpt-5-mini', input: PROMPT, stream }),
  call: (options) =>
    observe(async (o) => {
      const client = openaiClient(options)
      if (!options.streaming) {
        const res = await client.responses.create({ model: 'gpt-5-mini', input: PROMPT })
        o.text = res.output_text
        for (const item of res.output) {
          if (item.type !== 'message') continue
          for (const part of item.content) if (part.type === 'refusal') o.refusal += part.refusal
        }
        o.finish = responsesFinish(res)
        return
      }
      const stream = await client.responses.create({ model: 'gpt-5-mini', input: PROMPT, stream: true })
      for await (const event of stream) {
        if (event.type === 'response.output_text.delta') o.text += event.delta
        else if (event.type === 'response.refusal.delta') o.refusal += event.delta
        else if (
          event.type === 'response.completed' ||
          event.type === 'response.incomplete' ||
          event.type === 'response.failed'
        )
          o.finish = responsesFinish(event.response)
      }
    }),
}

export const anthropicDriver: Driver = {
  id: 'anthropic-messages',
  adapter: getAdapter('anthropic-messages'),
  model: 'claude-opus-5',
  url: () => `${BASE}/v1/messages`,
  requestBody: (stream) => ({
    model: 'claude-opus-5',
    max_tokens: 256,
    messages: [{ role: 'user', content: PROMPT }],
    stream,
  }),
  call: (options) =>
    observe(async (o) => {
      const client = new Anthropic({
        apiKey: 'sk-ant-test',
        baseURL: BASE,
        maxRetries: options.maxRetries,
        fetch: options.fetch,
      })
      const params = {
        model: 'claude-opus-5',
        max_tokens: 256,
        messages: [{ role: 'user' as const, content: PROMPT }],
      }
      if (!options.streaming) {
        const res = await client.messages.create(params)
        for (const block of res.content) if (block.type === 'text') o.text += block.text
        o.finish = res.stop_reason
        return
      }
      const stream = await client.messages.create({ ...params, stream: true })
      for await (const event of stream) {
        if (event.type === 'content_block_delta' && event.delta.type === 'text_delta')
          o.text += event.delta.text
        else if (event.type === 'message_delta') o.finish = event.delta.stop_reason
      }
    }),
}

export const geminiDriver: Driver = {
  id: 'gemini',
  adapter: getAdapter('gemini'),
  model: 'gemini-2.5-flash',
  url: (stream) =>
    `${BASE}/v1beta/models/gemini-2.5-flash:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
  requestBody: () => ({ contents: [{ role: 'user', parts: [{ text: PROMPT }] }] }),
  call: (options) =>
    observe(async (o) => {
      const client = new GoogleGenAI({
        apiKey: 'gm-test',
        httpOptions: {
          baseUrl: BASE,
          ...(options.fetch ? { fetch: options.fetch } : {}),
          ...(options.maxRetries > 0
            ? { retryOptions: { attempts: options.maxRetries + 1, initialDelay: 0, maxDelay: 0 } }
            : {}),
        },
      })
      const params = { model: 'gemini-2.5-flash', contents: PROMPT }
      const read = (res: {
        candidates?: { content?: { parts?: { text?: string }[] }; finishReason?: string }[]
      }) => {
        const candidate = res.candidates?.[0]
        for (const part of candidate?.content?.parts ?? []) o.text += part.text ?? ''
        if (candidate?.finishReason) o.finish = candidate.finishReason
      }
      if (!options.streaming) {
        read(await client.models.generateContent(params))
        return
      }
      for await (const chunk of await client.models.generateContentStream(params)) read(chunk)
    }),
}

export const DRIVERS: readonly Driver[] = [chatDriver, responsesDriver, anthropicDriver, geminiDriver]
