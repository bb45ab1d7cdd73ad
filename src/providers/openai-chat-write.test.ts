import { describe, expect, it } from 'vitest'
import type { JsonObject } from '../case/schema/json.ts'
import type { NormalizedRequest } from '../case/schema/normalized.ts'
import type { WireRequest } from '../case/schema/step.ts'
import { OPENAI_CHAT_CONVERSATION } from './internal/test-conversation-openai.ts'
import { openaiChat } from './openai-chat.ts'

const URL_ = 'https://api.openai.com/v1/chat/completions'

function wire(body: JsonObject, headers: Record<string, string> = {}): WireRequest {
  return { method: 'POST', url: URL_, headers, body }
}

describe('openaiChat.writeRequest', () => {
  const original = OPENAI_CHAT_CONVERSATION
  const normalized = () => openaiChat.normalizeRequest(original)
  const body = (w: WireRequest) => w.body as { messages: JsonObject[]; [key: string]: unknown }

  it('writes an unchanged request back exactly, headers and all', () => {
    expect(openaiChat.writeRequest(normalized(), original)).toStrictEqual(original)
  })

  it('rewrites only what a patch changed, in the original form', () => {
    const n = normalized()
    n.system = [{ type: 'text', text: 'Refund at most $20.' }]
    n.messages[2] = {
      role: 'tool',
      parts: [
        { type: 'tool_result', id: 'call_A17', name: 'get_order', content: '{"total":20}', isError: false },
      ],
    }
    n.params = { ...n.params, temperature: 0, maxTokens: 64, extra: { parallel_tool_calls: false } }
    const out = openaiChat.writeRequest(n, original)
    const messages = body(out).messages
    expect(messages[0]).toStrictEqual({ role: 'developer', content: 'Refund at most $20.' })
    expect(messages[3]).toStrictEqual({ role: 'tool', tool_call_id: 'call_A17', content: '{"total":20}' })
    expect(messages.slice(1, 3)).toStrictEqual(body(original).messages.slice(1, 3))
    expect(body(out)).toMatchObject({ temperature: 0, max_completion_tokens: 64, parallel_tool_calls: false })
    expect(out.headers).toBe(original.headers)
    expect(openaiChat.normalizeRequest(out)).toStrictEqual(n)
  })

  it('writes a token limit under the name the original used', () => {
    const legacy = wire({
      model: 'llama3',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 10,
      stop: '\n',
    })
    const n = openaiChat.normalizeRequest(legacy)
    const out = openaiChat.writeRequest({ ...n, params: { ...n.params, maxTokens: 20 } }, legacy)
    expect(out.body).toStrictEqual({
      model: 'llama3',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 20,
      stop: '\n',
    })
  })

  it('writes media back as the recorded part, and refuses media it has no bytes for', () => {
    const image = {
      type: 'image_url',
      image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'high' },
    }
    const recorded = wire({
      model: 'gpt-5',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'see' }, image] }],
    })
    const n = openaiChat.normalizeRequest(recorded)
    const media = n.messages[0]!.parts[1]!
    const moved: NormalizedRequest = {
      ...n,
      messages: [{ role: 'user', parts: [media, { type: 'text', text: 'what is this?' }] }],
    }
    expect(body(openaiChat.writeRequest(moved, recorded)).messages[0]!.content).toStrictEqual([
      image,
      { type: 'text', text: 'what is this?' },
    ])
    const unknown: NormalizedRequest = {
      ...n,
      messages: [{ role: 'user', parts: [{ type: 'media', mediaType: 'image/png', bytes: 3 }] }],
    }
    expect(() => openaiChat.writeRequest(unknown, recorded)).toThrow(
      /\[crashlab\] cannot write a image\/png media part/,
    )
    const byUrl: NormalizedRequest = {
      ...n,
      messages: [
        {
          role: 'user',
          parts: [{ type: 'media', mediaType: 'image/jpeg', bytes: null, ref: 'https://x.test/a.jpg' }],
        },
      ],
    }
    expect(body(openaiChat.writeRequest(byUrl, recorded)).messages[0]!.content).toStrictEqual([
      { type: 'image_url', image_url: { url: 'https://x.test/a.jpg' } },
    ])
  })
})
