import { describe, expect, it } from 'vitest'
import type { JsonObject } from '../case/schema/json.ts'
import { getAdapter } from './registry.ts'
import type { ProviderId } from './types.ts'

// A request body is JSON.parse'd, which makes `"__proto__"` an own key. Copied into `params.extra` by
// assignment, it would replace the object's prototype (the field lost, later look-ups reading through
// to it); a cassette's schema drops the key anyway, so the adapters leave it out.
const CASES: Array<[ProviderId, string, string]> = [
  [
    'openai-chat',
    'https://api.openai.com/v1/chat/completions',
    '{"model":"m","messages":[{"role":"user","content":"hi"}]',
  ],
  ['openai-responses', 'https://api.openai.com/v1/responses', '{"model":"m","input":"hi"'],
  [
    'anthropic-messages',
    'https://api.anthropic.com/v1/messages',
    '{"model":"m","max_tokens":8,"messages":[{"role":"user","content":"hi"}]',
  ],
  [
    'gemini',
    'https://generativelanguage.googleapis.com/v1beta/models/m:generateContent',
    '{"contents":[{"role":"user","parts":[{"text":"hi"}]}]',
  ],
]

describe.each(CASES)('%s: a "__proto__" key in the request body', (id, url, start) => {
  it('stays out of params.extra, whose prototype and other fields are untouched', () => {
    const body = JSON.parse(`${start},"__proto__":{"polluted":true},"x_trace":"t1"}`) as JsonObject
    expect(Object.hasOwn(body, '__proto__')).toBe(true)
    const normalized = getAdapter(id).normalizeRequest({ method: 'POST', url, headers: {}, body })
    const extra = normalized.params.extra as Record<string, unknown>
    expect(Object.getPrototypeOf(extra)).toBe(Object.prototype)
    expect(Object.hasOwn(extra, '__proto__')).toBe(false)
    expect((extra as { polluted?: unknown }).polluted).toBeUndefined()
    expect(extra.x_trace).toBe('t1')
  })
})
