import { describe, expect, it } from 'vitest'
import type { JsonObject } from '../case/schema/json.ts'
import type { WireRequest } from '../case/schema/step.ts'
import {
  CONVERSATION_MESSAGES,
  CONVERSATION_SYSTEM,
  CONVERSATION_TOOLS,
} from './internal/test-conversation.ts'
import { OPENAI_CHAT_CONVERSATION } from './internal/test-conversation-openai.ts'
import { openaiChat } from './openai-chat.ts'
import { findAdapter } from './registry.ts'
import { requestHash } from './request-hash.ts'

const URL_ = 'https://api.openai.com/v1/chat/completions'

function wire(body: JsonObject, headers: Record<string, string> = {}): WireRequest {
  return { method: 'POST', url: URL_, headers, body }
}

describe('openaiChat.matches', () => {
  it.each([
    'https://api.openai.com/v1/chat/completions',
    'http://localhost:11434/v1/chat/completions',
    'https://api.groq.com/openai/v1/chat/completions',
    'https://openrouter.ai/api/v1/chat/completions',
    'https://api.deepseek.com/chat/completions',
    'http://127.0.0.1:8000/v1/chat/completions/',
    'https://acme.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21',
  ])('claims POST %s, and the registry routes it here', (url) => {
    expect(openaiChat.matches({ method: 'POST', url })).toBe(true)
    expect(openaiChat.matches({ method: 'post', url: new URL(url) })).toBe(true)
    expect(findAdapter({ method: 'POST', url })?.id).toBe('openai-chat')
  })

  it.each([
    ['GET', 'https://api.openai.com/v1/models'],
    ['POST', 'https://api.openai.com/v1/embeddings'],
    ['GET', 'https://api.openai.com/v1/responses/resp_123'],
    ['POST', 'https://api.openai.com/v1/responses'],
    ['POST', 'https://api.openai.com/v1/completions'],
    ['POST', 'https://api.openai.com/v1/chat/completions/chatcmpl-123'],
    ['GET', 'https://api.openai.com/v1/chat/completions'],
    ['POST', 'https://api.openai.com/v1/traces/ingest'],
  ])('leaves %s %s alone', (method, url) => {
    expect(openaiChat.matches({ method, url })).toBe(false)
  })

  it('isStreaming reads the body flag', () => {
    expect(openaiChat.isStreaming(wire({ model: 'm', messages: [], stream: true }))).toBe(true)
    expect(openaiChat.isStreaming(wire({ model: 'm', messages: [], stream: false }))).toBe(false)
    expect(openaiChat.isStreaming(wire({ model: 'm', messages: [] }))).toBe(false)
  })
})

describe('openaiChat.normalizeRequest', () => {
  it('reads the shared conversation as the shared normalized values', () => {
    const n = openaiChat.normalizeRequest(OPENAI_CHAT_CONVERSATION)
    expect(n.system).toStrictEqual(CONVERSATION_SYSTEM)
    expect(n.messages).toStrictEqual(CONVERSATION_MESSAGES)
    expect(n.tools).toStrictEqual(CONVERSATION_TOOLS)
    expect(n.params).toStrictEqual({ toolChoice: 'auto', extra: { parallel_tool_calls: true } })
  })

  it('keeps what the neutral shape cannot name under extra, with its wire name', () => {
    const n = openaiChat.normalizeRequest(
      wire({
        model: 'gpt-5',
        messages: [],
        max_completion_tokens: 100,
        max_tokens: 50,
        temperature: null,
        top_p: '0.9',
        stop: ['END', 'STOP'],
        seed: 7,
        tool_choice: 'required',
        reasoning_effort: 'low',
        tools: [{ type: 'custom', custom: { name: 'code_exec' } }],
      }),
    )
    expect(n.params).toStrictEqual({
      maxTokens: 100,
      stop: ['END', 'STOP'],
      seed: 7,
      toolChoice: 'required',
      extra: {
        max_tokens: 50,
        top_p: '0.9',
        reasoning_effort: 'low',
        tools: [{ type: 'custom', custom: { name: 'code_exec' } }],
      },
    })
    expect(n.tools).toStrictEqual([])
  })

  it('reads names, audio, file ids, custom tool calls and arguments that are not JSON', () => {
    const n = openaiChat.normalizeRequest(
      wire({
        model: 'gpt-4o-audio-preview',
        messages: [
          {
            role: 'user',
            name: 'ada',
            content: [
              { type: 'input_audio', input_audio: { data: 'UklGRiQAAABXQVZF', format: 'wav' } },
              { type: 'file', file: { file_id: 'file-abc', filename: 'notes.txt' } },
            ],
          },
          {
            role: 'assistant',
            content: '',
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":' } },
              { id: 'call_2', type: 'custom', custom: { name: 'code_exec', input: 'print(1)' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_2', content: [{ type: 'text', text: '1' }] },
          { role: 'tool', tool_call_id: 'call_unknown', content: 'orphan' },
        ],
      }),
    )
    expect(n.messages).toStrictEqual([
      {
        role: 'user',
        name: 'ada',
        parts: [
          {
            type: 'media',
            mediaType: 'audio/wav',
            bytes: 12,
            // sha256 of the 12 decoded bytes "RIFF$\0\0\0WAVE", worked out with Python's hashlib
            sha256: '61607e279f58ecf64ac48b25b94c2cec1c45e9344bdd03127fdd0ce0485f2c95',
          },
          { type: 'media', mediaType: 'text/plain', bytes: null, ref: 'file-abc' },
        ],
      },
      {
        role: 'assistant',
        parts: [
          { type: 'tool_call', id: 'call_1', name: 'f', args: null, argsText: '{"a":' },
          { type: 'tool_call', id: 'call_2', name: 'code_exec', args: null, argsText: 'print(1)' },
        ],
      },
      {
        role: 'tool',
        parts: [{ type: 'tool_result', id: 'call_2', name: 'code_exec', content: '1', isError: false }],
      },
      {
        role: 'tool',
        parts: [{ type: 'tool_result', id: 'call_unknown', content: 'orphan', isError: false }],
      },
    ])
  })
})

describe('requestHash of chat requests', () => {
  const hash = (w: WireRequest) =>
    requestHash({
      method: w.method,
      url: w.url,
      headers: w.headers,
      normalized: openaiChat.normalizeRequest(w),
    })
  const base = OPENAI_CHAT_CONVERSATION
  const withBody = (patch: JsonObject, headers = base.headers): WireRequest => ({
    ...base,
    headers,
    body: { ...(base.body as JsonObject), ...patch },
  })

  it('ignores volatile fields, SDK headers and the host', () => {
    const h = hash(base)
    expect(
      hash(withBody({ user: 'u-1', metadata: { run: '7' }, prompt_cache_key: 'k', safety_identifier: 's' })),
    ).toBe(h)
    expect(
      hash(
        withBody(
          {},
          { 'user-agent': 'OpenAI/JS 6.49.0', 'x-stainless-retry-count': '2', authorization: 'Bearer sk-x' },
        ),
      ),
    ).toBe(h)
    expect(hash({ ...base, url: 'http://localhost:4010/v1/chat/completions' })).toBe(h)
  })

  it('changes when a message, a tool or a parameter changes', () => {
    const h = hash(base)
    const messages = [...((base.body as JsonObject).messages as JsonObject[])]
    messages[5] = { role: 'user', content: 'Thanks a lot!' }
    expect(hash(withBody({ messages }))).not.toBe(h)
    expect(hash(withBody({ temperature: 0.5 }))).not.toBe(h)
    expect(hash(withBody({ tools: [] }))).not.toBe(h)
  })
})
