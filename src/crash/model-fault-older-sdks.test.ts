import AnthropicV0 from 'anthropic-sdk-v0'
import OpenAIV6 from 'openai-v6'
import { describe, expect, it } from 'vitest'
import type { ModelFault } from './faults.ts'
import { anthropicDriver, chatDriver, recordedResponse } from './internal/test-sdk-drivers.ts'
import { modelFaultAnswer } from './model-fault.ts'

/**
 * The previous major versions still in use (openai 6, @anthropic-ai/sdk 0.x) classify the fault
 * rejections as the current ones do. A custom `fetch` gives the fault first, the recording after.
 */

function fetchFor(fault: ModelFault, d: typeof chatDriver) {
  const counter = { requests: 0 }
  const recorded = recordedResponse(d.model)
  const answer = modelFaultAnswer(fault, {
    adapter: d.adapter,
    streaming: false,
    requestBody: null,
    recorded,
  })
  const customFetch = async () => {
    counter.requests++
    if (counter.requests > 1) return Response.json(d.adapter.writeResponse(recorded, {}))
    if ('reject' in answer) throw answer.reject
    return answer.response
  }
  return { fetch: customFetch as typeof fetch, counter }
}

const messages = [{ role: 'user' as const, content: 'Refund order A17.' }]

describe('openai 6', () => {
  const call = (fault: ModelFault, maxRetries = 0) => {
    const { fetch, counter } = fetchFor(fault, chatDriver)
    const client = new OpenAIV6({ apiKey: 'sk-test', baseURL: 'http://crash.test/v1', maxRetries, fetch })
    return { pending: client.chat.completions.create({ model: 'gpt-5-mini', messages }), counter }
  }

  it('timeout: APIConnectionTimeoutError; reset: APIConnectionError and not a timeout', async () => {
    await expect(call({ kind: 'timeout' }).pending).rejects.toBeInstanceOf(OpenAIV6.APIConnectionTimeoutError)
    const reset = await call({ kind: 'connection_reset' }).pending.catch((e) => e)
    expect(reset).toBeInstanceOf(OpenAIV6.APIConnectionError)
    expect(reset).not.toBeInstanceOf(OpenAIV6.APIConnectionTimeoutError)
  })

  it('429 with retry-after 0: retried at once, the retry gets the recording', async () => {
    const { pending, counter } = call({ kind: 'rate_limit', retryAfterSeconds: 0 }, 1)
    const res = await pending
    expect(counter.requests).toBe(2)
    expect(res.choices[0]?.message.content).toContain('refunded in full')
  })
})

describe('@anthropic-ai/sdk 0.x', () => {
  const call = (fault: ModelFault) => {
    const { fetch } = fetchFor(fault, anthropicDriver)
    const client = new AnthropicV0({
      apiKey: 'sk-ant-test',
      baseURL: 'http://crash.test',
      maxRetries: 0,
      fetch,
    })
    return client.messages.create({ model: 'claude-opus-5', max_tokens: 256, messages })
  }

  it('timeout: APIConnectionTimeoutError; reset: APIConnectionError and not a timeout; 429: RateLimitError', async () => {
    await expect(call({ kind: 'timeout' })).rejects.toBeInstanceOf(AnthropicV0.APIConnectionTimeoutError)
    const reset = await call({ kind: 'connection_reset' }).catch((e) => e)
    expect(reset).toBeInstanceOf(AnthropicV0.APIConnectionError)
    expect(reset).not.toBeInstanceOf(AnthropicV0.APIConnectionTimeoutError)
    await expect(call({ kind: 'rate_limit' })).rejects.toBeInstanceOf(AnthropicV0.RateLimitError)
  })
})
