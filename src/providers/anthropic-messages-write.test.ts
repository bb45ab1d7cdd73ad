import { describe, expect, it } from 'vitest'
import type { JsonObject } from '../case/schema/json.ts'
import type { NormalizedRequest } from '../case/schema/normalized.ts'
import type { WireRequest } from '../case/schema/step.ts'
import { anthropicMessages } from './anthropic-messages.ts'

/** A request with what writeRequest must keep: cache_control, a signed thinking block, a server tool. */
const original: WireRequest = {
  method: 'POST',
  url: 'https://api.anthropic.com/v1/messages',
  headers: { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'interleaved-thinking-2025-05-14' },
  body: {
    model: 'claude-sonnet-4-5',
    max_tokens: 2048,
    system: [
      { type: 'text', text: 'You are a refund assistant.' },
      { type: 'text', text: '<policy>…</policy>', cache_control: { type: 'ephemeral' } },
    ],
    thinking: { type: 'enabled', budget_tokens: 1024 },
    tool_choice: { type: 'auto', disable_parallel_tool_use: true },
    tools: [
      { name: 'get_order', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' } },
      { type: 'web_search_20250305', name: 'web_search' },
      { name: 'refund', description: 'Refund an order', input_schema: { type: 'object' } },
    ],
    messages: [
      { role: 'user', content: 'Refund A17' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Look it up first.', signature: 'sig-1' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_order', input: { id: 'A17' } },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_1',
            content: '{"total":49}',
            cache_control: { type: 'ephemeral' },
          },
          { type: 'text', text: 'Quickly please.' },
        ],
      },
    ],
  },
}
const body = original.body as JsonObject
const normalized = anthropicMessages.normalizeRequest(original)

function rewrite(change: (n: NormalizedRequest) => NormalizedRequest): JsonObject {
  const written = anthropicMessages.writeRequest(change(structuredClone(normalized)), original)
  expect(written.headers).toEqual(original.headers)
  return written.body as JsonObject
}

describe('anthropicMessages.writeRequest', () => {
  it('gives back an unchanged request byte for byte', () => {
    expect(JSON.stringify(anthropicMessages.writeRequest(normalized, original))).toBe(
      JSON.stringify(original),
    )
  })

  it('rewrites a changed tool result and keeps the rest of its turn and the turns before', () => {
    const out = rewrite((n) => {
      const tool = n.messages[2]!.parts[0]!
      if (tool.type === 'tool_result') tool.content = '{"total":4900}'
      return n
    })
    const messages = out.messages as JsonObject[]
    expect(messages.slice(0, 2)).toEqual((body.messages as JsonObject[]).slice(0, 2))
    expect(messages[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: '{"total":4900}' },
        { type: 'text', text: 'Quickly please.' },
      ],
    })
  })

  it('keeps the thinking signature when only the text around it changed', () => {
    const out = rewrite((n) => {
      n.messages[1]!.parts.push({ type: 'text', text: 'Checking.' })
      return n
    })
    expect((out.messages as JsonObject[])[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Look it up first.', signature: 'sig-1' },
        { type: 'tool_use', id: 'toolu_1', name: 'get_order', input: { id: 'A17' } },
        { type: 'text', text: 'Checking.' },
      ],
    })
  })

  it('keeps cache_control on the unchanged system block', () => {
    const out = rewrite((n) => ({ ...n, system: [{ type: 'text', text: 'You are terse.' }, n.system[1]!] }))
    expect(out.system).toEqual([
      { type: 'text', text: 'You are terse.' },
      { type: 'text', text: '<policy>…</policy>', cache_control: { type: 'ephemeral' } },
    ])
  })

  it('fills client tool slots in order, keeps server tools in place, merges onto the original tool', () => {
    const out = rewrite((n) => ({
      ...n,
      tools: [
        { ...n.tools[0]!, description: 'Look up an order' },
        { name: 'escalate', parameters: { type: 'object', properties: {} } },
      ],
    }))
    expect(out.tools).toEqual([
      {
        name: 'get_order',
        input_schema: { type: 'object' },
        cache_control: { type: 'ephemeral' },
        description: 'Look up an order',
      },
      { type: 'web_search_20250305', name: 'web_search' },
      { name: 'escalate', input_schema: { type: 'object', properties: {} } },
    ])
  })

  it('writes params by their wire names, merging what was left of tool_choice', () => {
    const out = rewrite((n) => ({
      ...n,
      model: 'claude-opus-4-6',
      params: {
        ...n.params,
        temperature: 0,
        topP: 0.9,
        stop: ['END'],
        toolChoice: { name: 'refund' },
        stream: true,
      },
    }))
    expect(out).toMatchObject({
      model: 'claude-opus-4-6',
      temperature: 0,
      top_p: 0.9,
      stop_sequences: ['END'],
      stream: true,
      tool_choice: { type: 'tool', name: 'refund', disable_parallel_tool_use: true },
      thinking: { type: 'enabled', budget_tokens: 1024 },
    })
    expect(Object.keys(out).slice(0, 3)).toEqual(['model', 'max_tokens', 'system'])
  })

  it('drops an extra param the normalized request no longer has, but never max_tokens', () => {
    const out = rewrite((n) => ({ ...n, params: {} }))
    expect(out.thinking).toBeUndefined()
    expect(out.tool_choice).toBeUndefined()
    expect(out.max_tokens).toBe(2048)
  })

  it('writes new media parts as references, or as empty base64 when the bytes are gone', () => {
    const out = rewrite((n) => {
      n.messages.push({
        role: 'user',
        parts: [
          { type: 'media', mediaType: 'image/jpeg', bytes: null, ref: 'https://example.com/box.jpg' },
          { type: 'media', mediaType: 'application/pdf', bytes: null, ref: 'file_011CN' },
          { type: 'media', mediaType: 'image/png', bytes: 70 },
        ],
      })
      return n
    })
    expect((out.messages as JsonObject[])[3]).toEqual({
      role: 'user',
      content: [
        { type: 'image', source: { type: 'url', url: 'https://example.com/box.jpg' } },
        { type: 'document', source: { type: 'file', file_id: 'file_011CN' } },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: '' } },
      ],
    })
  })

  it('round-trips a request normalized from another API', () => {
    const foreign: NormalizedRequest = {
      model: 'claude-sonnet-4-5',
      system: [{ type: 'text', text: 'Be brief.' }],
      messages: [
        { role: 'user', parts: [{ type: 'text', text: 'Hi' }] },
        {
          role: 'assistant',
          parts: [
            { type: 'tool_call', id: 'call_1', name: 'f', args: { a: 1 } },
            { type: 'tool_call', id: 'call_2', name: 'f', args: { a: 2 } },
          ],
        },
        {
          role: 'tool',
          parts: [{ type: 'tool_result', id: 'call_1', name: 'f', content: 'oops', isError: true }],
        },
        {
          role: 'tool',
          parts: [{ type: 'tool_result', id: 'call_2', name: 'f', content: 'ok', isError: false }],
        },
      ],
      tools: [{ name: 'f', parameters: { type: 'object' } }],
      params: { maxTokens: 10, toolChoice: 'none' },
    }
    const wire = anthropicMessages.writeRequest(foreign, {
      method: 'POST',
      url: original.url,
      headers: {},
      body: null,
    })
    expect(wire.body).toMatchObject({ system: 'Be brief.', tool_choice: { type: 'none' } })
    expect((wire.body as JsonObject).messages).toHaveLength(3)
    expect(anthropicMessages.normalizeRequest(wire)).toEqual(foreign)
  })
})
