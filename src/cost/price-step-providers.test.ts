import { afterEach, describe, expect, it } from 'vitest'
import type { JsonObject } from '../case/schema/json.ts'
import type { Usage } from '../case/schema/normalized.ts'
import { anthropicMessages } from '../providers/anthropic-messages.ts'
import { gemini } from '../providers/gemini.ts'
import { openaiChat } from '../providers/openai-chat.ts'
import { openaiResponses } from '../providers/openai-responses.ts'
import type { ProviderAdapter } from '../providers/types.ts'
import { CATALOG } from './catalog.ts'
import { llmStep } from './internal/test-steps.ts'
import { priceStep } from './price-step.ts'
import { clearPrices } from './set-price.ts'

/**
 * Catalog prices against figures computed by hand. The per-million prices are literals read from the
 * data of @pydantic/genai-prices 0.1.8 (its bundled `dist/index.js`), not from the code under test; the
 * usage goes through the real adapters from the wire bodies, so these tests also hold the adapters'
 * usage conventions (what is inside which total) and the pricing together: no token counted twice.
 */

const M = 1e6

/** The usage an adapter reads from a response body. */
function usageVia(adapter: ProviderAdapter, body: JsonObject): Usage {
  const usage = adapter.normalizeResponse({ status: 200, headers: {}, body })?.usage
  if (!usage) throw new Error('the adapter read no usage')
  return usage
}

afterEach(() => clearPrices())

describe('OpenAI', () => {
  const chatUrl = 'https://api.openai.com/v1/chat/completions'

  it('prices gpt-4o with cached input at its cache-read rate', () => {
    // gpt-4o: input $2.50, cache read $1.25, output $10 per million.
    const usage = usageVia(openaiChat, {
      model: 'gpt-4o-2024-08-06',
      choices: [],
      usage: {
        prompt_tokens: 10_000,
        completion_tokens: 1_500,
        prompt_tokens_details: { cached_tokens: 4_000 },
      },
    })
    const cost = priceStep(llmStep({ url: chatUrl, model: 'gpt-4o', served: 'gpt-4o-2024-08-06', usage }))
    // prompt_tokens includes the cached ones: 6,000 uncached + 4,000 cached.
    expect(cost?.usd).toBeCloseTo((6_000 * 2.5 + 4_000 * 1.25 + 1_500 * 10) / M, 12) // $0.035
    expect(cost).toMatchObject({ catalog: '@pydantic/genai-prices', catalogVersion: CATALOG.version })
  })

  it('prices o3 reasoning tokens as output, at the prices of the step date', () => {
    const usage = usageVia(openaiResponses, {
      id: 'resp_1',
      model: 'o3-2025-04-16',
      status: 'completed',
      output: [],
      usage: {
        input_tokens: 20_000,
        input_tokens_details: { cached_tokens: 8_000 },
        output_tokens: 5_000,
        output_tokens_details: { reasoning_tokens: 3_500 },
      },
    })
    const url = 'https://api.openai.com/v1/responses'
    const step = (startedAt: string) =>
      llmStep({ url, provider: 'openai-responses', model: 'o3', served: 'o3-2025-04-16', usage, startedAt })
    // From 2025-06-10: input $2, cache read $0.50, output $8. output_tokens already counts the reasoning.
    const after = priceStep(step('2025-07-01T12:00:00.000Z'))
    expect(after?.usd).toBeCloseTo((12_000 * 2 + 8_000 * 0.5 + 5_000 * 8) / M, 12) // $0.068
    expect(after?.priceDate).toBe('2025-07-01T12:00:00.000Z')
    // Before the cut: input $10, cache read $0.50, output $40.
    const before = priceStep(step('2025-05-01T12:00:00.000Z'))
    expect(before?.usd).toBeCloseTo((12_000 * 10 + 8_000 * 0.5 + 5_000 * 40) / M, 12) // $0.324
  })
})

describe('Anthropic', () => {
  it('prices cache reads and cache writes at their own rates', () => {
    // The usage of the prompt-caching golden response (src/providers/golden/anthropic-messages).
    const usage = usageVia(anthropicMessages, {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-20250514',
      content: [],
      stop_reason: 'end_turn',
      usage: {
        input_tokens: 21,
        cache_creation_input_tokens: 188_086,
        cache_read_input_tokens: 2_048,
        output_tokens: 393,
      },
    })
    expect(usage).toMatchObject({ inputTokens: 190_155, cachedTokens: 2_048, cacheWriteTokens: 188_086 })
    const url = 'https://api.anthropic.com/v1/messages'
    const cost = priceStep(
      llmStep({ url, provider: 'anthropic-messages', model: 'claude-sonnet-4-20250514', usage }),
    )
    // claude-sonnet-4-0: input $3, cache write $3.75, cache read $0.30, output $15.
    expect(cost?.usd).toBeCloseTo((21 * 3 + 188_086 * 3.75 + 2_048 * 0.3 + 393 * 15) / M, 12) // $0.7118949
  })
})

describe('Google', () => {
  const url = (model: string) =>
    `https://generativelanguage.googleapis.com/v1beta/models/${model}:generateContent`

  it('prices Gemini cached content and thoughts', () => {
    const usage = usageVia(gemini, {
      modelVersion: 'gemini-2.5-flash',
      candidates: [],
      usageMetadata: {
        promptTokenCount: 12_000,
        cachedContentTokenCount: 10_000,
        candidatesTokenCount: 800,
        thoughtsTokenCount: 1_200,
      },
    })
    const cost = priceStep(
      llmStep({ url: url('gemini-2.5-flash'), provider: 'gemini', model: 'gemini-2.5-flash', usage }),
    )
    // gemini-2.5-flash: input $0.30, cache read $0.03, output $2.50 (thinking is billed as output).
    expect(cost?.usd).toBeCloseTo((2_000 * 0.3 + 10_000 * 0.03 + (800 + 1_200) * 2.5) / M, 12) // $0.0059
  })

  it('applies the long-context tier of gemini-2.5-pro above 200k input tokens', () => {
    const step = (inputTokens: number) =>
      llmStep({
        url: url('gemini-2.5-pro'),
        provider: 'gemini',
        model: 'gemini-2.5-pro',
        usage: { inputTokens, outputTokens: 1_000 },
      })
    // gemini-2.5-pro: input $1.25 / output $10, and $2.50 / $15 for the whole request above 200,000 input tokens.
    expect(priceStep(step(100_000))?.usd).toBeCloseTo((100_000 * 1.25 + 1_000 * 10) / M, 12) // $0.135
    expect(priceStep(step(250_000))?.usd).toBeCloseTo((250_000 * 2.5 + 1_000 * 15) / M, 12) // $0.64
  })
})

describe('Groq, Mistral and OpenRouter', () => {
  it('prices a Groq model from the Groq host', () => {
    const url = 'https://api.groq.com/openai/v1/chat/completions'
    const usage = usageVia(openaiChat, {
      model: 'llama-3.3-70b-versatile',
      choices: [],
      usage: { prompt_tokens: 3_000, completion_tokens: 500 },
    })
    // llama-3.3-70b-versatile on Groq: input $0.59, output $0.79.
    expect(priceStep(llmStep({ url, model: 'llama-3.3-70b-versatile', usage }))?.usd).toBeCloseTo(
      (3_000 * 0.59 + 500 * 0.79) / M,
      12,
    ) // $0.002165
  })

  it('prices Mistral models, an alias (-latest) included', () => {
    const url = 'https://api.mistral.ai/v1/chat/completions'
    const usage = { inputTokens: 4_000, outputTokens: 1_000 }
    // mistral-large: input $2, output $6; mistral-small-latest: input $0.10, output $0.30.
    expect(priceStep(llmStep({ url, model: 'mistral-large-latest', usage }))?.usd).toBeCloseTo(
      (4_000 * 2 + 1_000 * 6) / M,
      12,
    ) // $0.014
    expect(priceStep(llmStep({ url, model: 'mistral-small-latest', usage }))?.usd).toBeCloseTo(
      (4_000 * 0.1 + 1_000 * 0.3) / M,
      12,
    ) // $0.0007
  })

  it("prices a model at OpenRouter's rate, not its maker's", () => {
    const url = 'https://openrouter.ai/api/v1/chat/completions'
    const usage = { inputTokens: 1_000, outputTokens: 100, cachedTokens: 400 }
    // openai/gpt-4o on OpenRouter: input $2.50, output $10, no cache-read rate (cached input at the input rate).
    expect(priceStep(llmStep({ url, model: 'openai/gpt-4o', usage }))?.usd).toBeCloseTo(
      (1_000 * 2.5 + 100 * 10) / M,
      12,
    ) // $0.0035
  })
})
