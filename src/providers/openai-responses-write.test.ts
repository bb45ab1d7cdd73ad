import { describe, expect, it } from 'vitest'
import type { JsonObject } from '../case/schema/json.ts'
import type { WireRequest } from '../case/schema/step.ts'
import { OPENAI_RESPONSES_CONVERSATION } from './internal/test-conversation-openai.ts'
import { openaiResponses } from './openai-responses.ts'

const URL_ = 'https://api.openai.com/v1/responses'

function wire(body: JsonObject, headers: Record<string, string> = {}): WireRequest {
  return { method: 'POST', url: URL_, headers, body }
}

describe('openaiResponses.writeRequest', () => {
  const original = OPENAI_RESPONSES_CONVERSATION
  const input = (w: WireRequest) => (w.body as { input: JsonObject[] }).input

  it('writes an unchanged request back exactly', () => {
    expect(openaiResponses.writeRequest(openaiResponses.normalizeRequest(original), original)).toStrictEqual(
      original,
    )
  })

  it('keeps unchanged items verbatim, system items and unknown items in their places', () => {
    const recorded = wire({
      model: 'gpt-5',
      input: [
        { role: 'user', content: 'Hi' },
        { type: 'item_reference', id: 'ws_1' },
        { role: 'assistant', content: 'Hello.' },
        { role: 'developer', content: 'Answer in French.' },
        { role: 'user', content: 'Bye' },
      ],
    })
    const n = openaiResponses.normalizeRequest(recorded)
    n.messages[2] = { role: 'user', parts: [{ type: 'text', text: 'Au revoir' }] }
    const out = openaiResponses.writeRequest(n, recorded)
    expect(input(out)).toStrictEqual([
      { role: 'user', content: 'Hi' },
      { type: 'item_reference', id: 'ws_1' },
      { role: 'assistant', content: 'Hello.' },
      { role: 'developer', content: 'Answer in French.' },
      { role: 'user', content: 'Au revoir' },
    ])
    expect(openaiResponses.normalizeRequest(out)).toStrictEqual(n)
  })

  it('puts a new system prompt in instructions, and a string input stays a string', () => {
    const recorded = wire({ model: 'gpt-5', input: 'Hi', store: false })
    const n = openaiResponses.normalizeRequest(recorded)
    n.system = [{ type: 'text', text: 'Be brief.' }]
    n.messages = [{ role: 'user', parts: [{ type: 'text', text: 'Hello' }] }]
    n.params = {
      ...n.params,
      maxTokens: 32,
      toolChoice: { name: 'get_order' },
      responseFormat: { type: 'text' },
    }
    expect(openaiResponses.writeRequest(n, recorded).body).toStrictEqual({
      model: 'gpt-5',
      input: 'Hello',
      store: false,
      instructions: 'Be brief.',
      text: { format: { type: 'text' } },
      tool_choice: { type: 'function', name: 'get_order' },
      max_output_tokens: 32,
    })
  })

  it('rebuilds a changed tool call and tool output on their recorded items', () => {
    const n = openaiResponses.normalizeRequest(original)
    n.messages[1]!.parts[1] = {
      type: 'tool_call',
      id: 'call_A17',
      name: 'get_order',
      args: { order_id: 'B2' },
    }
    n.messages[2]!.parts[0] = {
      type: 'tool_result',
      id: 'call_A17',
      name: 'get_order',
      content: 'none',
      isError: false,
    }
    const items = input(openaiResponses.writeRequest(n, original))
    expect(items[2]).toStrictEqual({ ...input(original)[2], arguments: '{"order_id":"B2"}' })
    expect(items[3]).toStrictEqual({ type: 'function_call_output', call_id: 'call_A17', output: 'none' })
    expect(items[1]).toBe(input(original)[1])
  })
})
