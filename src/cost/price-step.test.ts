import { afterEach, describe, expect, it } from 'vitest'
import { isCrashlabError } from '../errors.ts'
import { CATALOG } from './catalog.ts'
import { AT, llmStep } from './internal/test-steps.ts'
import { priceStep } from './price-step.ts'
import { clearPrices, setPrice } from './set-price.ts'

const M = 1e6
const OPENAI = 'https://api.openai.com/v1/chat/completions'
const usage = { inputTokens: 10_000, outputTokens: 2_000 }

afterEach(() => clearPrices())

describe('priceStep: where a price comes from', () => {
  it('stores the catalog name, version and the instant priced at', () => {
    expect(priceStep(llmStep({ url: OPENAI, model: 'gpt-4o', usage }))).toEqual({
      usd: (10_000 * 2.5 + 2_000 * 10) / M, // gpt-4o: $2.50 in, $10 out per million
      catalog: '@pydantic/genai-prices',
      catalogVersion: CATALOG.version,
      priceDate: AT,
    })
  })

  it.each([
    'http://localhost:11434/v1/chat/completions',
    'http://127.0.0.1:4010/v1/chat/completions',
    'http://[::1]:8080/v1/chat/completions',
    'http://gpu-box.local:8000/v1/chat/completions',
    'http://ollama.internal:11434/api/chat',
  ])('costs $0 at the local endpoint %s, whatever the model', (url) => {
    expect(priceStep(llmStep({ url, model: 'gpt-4o', usage }))).toEqual({ usd: 0, catalog: 'local' })
  })

  it('has no cost for a model the catalog does not know: never a guess', () => {
    expect(priceStep(llmStep({ url: OPENAI, model: 'gpt-imaginary-9', usage }))).toBeNull()
  })

  it('has no cost at a host no catalog provider serves, even for a known model name', () => {
    const url = 'https://llm-gateway.example.com/v1/chat/completions'
    expect(priceStep(llmStep({ url, model: 'gpt-4o', usage }))).toBeNull()
  })

  it('prices the model that was served, not the one asked for', () => {
    // Asked for gpt-4o-mini ($0.15 / $0.60), served gpt-4o ($2.50 / $10).
    const cost = priceStep(llmStep({ url: OPENAI, model: 'gpt-4o-mini', served: 'gpt-4o', usage }))
    expect(cost?.usd).toBeCloseTo((10_000 * 2.5 + 2_000 * 10) / M, 12)
    const unsaid = priceStep(llmStep({ url: OPENAI, model: 'gpt-4o-mini', served: null, usage }))
    expect(unsaid?.usd).toBeCloseTo((10_000 * 0.15 + 2_000 * 0.6) / M, 12)
  })

  it('has no cost without usage: an error, a cut stream, a server that reports none', () => {
    expect(priceStep(llmStep({ url: OPENAI, model: 'gpt-4o', usage: null }))).toBeNull()
    expect(priceStep({ ...llmStep({ url: OPENAI, model: 'gpt-4o', usage }), response: null })).toBeNull()
    const local = llmStep({ url: 'http://localhost:11434/api/chat', model: 'llama3', usage: null })
    expect(priceStep(local)).toBeNull()
  })

  it('has no cost when the usage does not add up (more cached tokens than input)', () => {
    const broken = { inputTokens: 100, outputTokens: 5, cachedTokens: 500 }
    expect(priceStep(llmStep({ url: OPENAI, model: 'gpt-4o', usage: broken }))).toBeNull()
  })
})

describe('priceStep: user prices', () => {
  const price = { input: 1, output: 4, cachedInput: 0.1, cacheWrite: 1.5, reasoning: 6 }

  it('prices each part of the usage at its rate, taking it out of its total', () => {
    setPrice('my-finetune', price)
    const parts = {
      inputTokens: 10_000,
      cachedTokens: 3_000,
      cacheWriteTokens: 2_000,
      outputTokens: 1_000,
      reasoningTokens: 400,
    }
    const cost = priceStep(llmStep({ url: OPENAI, model: 'my-finetune', usage: parts }))
    const expected = (5_000 * 1 + 3_000 * 0.1 + 2_000 * 1.5 + 600 * 4 + 400 * 6) / M // $0.0131
    expect(cost).toEqual({ usd: expected, catalog: 'user' })
  })

  it('prices cached input, cache writes and reasoning at the plain rates when not given', () => {
    setPrice('my-finetune', { input: 1, output: 4 })
    const parts = {
      inputTokens: 10_000,
      cachedTokens: 3_000,
      cacheWriteTokens: 2_000,
      outputTokens: 1_000,
      reasoningTokens: 400,
    }
    const cost = priceStep(llmStep({ url: OPENAI, model: 'my-finetune', usage: parts }))
    expect(cost?.usd).toBeCloseTo((10_000 * 1 + 1_000 * 4) / M, 12)
  })

  it('wins over the catalog and over the $0 of a local endpoint', () => {
    setPrice('gpt-4o', { input: 100, output: 100 })
    expect(priceStep(llmStep({ url: OPENAI, model: 'gpt-4o', usage }))?.usd).toBeCloseTo(1.2, 12)
    const proxy = llmStep({ url: 'http://localhost:4000/v1/chat/completions', model: 'gpt-4o', usage })
    expect(priceStep(proxy)).toEqual({ usd: 1.2, catalog: 'user' })
  })

  it('matches a model at a provider by host, host with port, catalog id or adapter', () => {
    const groq = llmStep({
      url: 'https://api.groq.com/openai/v1/chat/completions',
      model: 'llama-3.3-70b-versatile',
      usage,
    })
    for (const provider of ['api.groq.com', 'groq', 'openai-chat', 'API.GROQ.COM']) {
      clearPrices()
      setPrice({ provider, model: 'Llama-3.3-70B-Versatile' }, { input: 1, output: 1 })
      expect(priceStep(groq), provider).toEqual({ usd: 0.012, catalog: 'user' })
    }
    clearPrices()
    setPrice('localhost:4000/gpt-4o', { input: 1, output: 1 })
    const proxy = llmStep({ url: 'http://localhost:4000/v1/chat/completions', model: 'gpt-4o', usage })
    expect(priceStep(proxy)?.catalog).toBe('user')
    const otherPort = llmStep({ url: 'http://localhost:5000/v1/chat/completions', model: 'gpt-4o', usage })
    expect(priceStep(otherPort)?.catalog).toBe('local')
  })

  it('prefers a price at the provider to one for the model alone, and setPrice to options for one key', () => {
    setPrice('gpt-4o', { input: 1, output: 1 })
    const options = {
      prices: { 'openai/gpt-4o': { input: 2, output: 2 }, 'gpt-4o': { input: 3, output: 3 } },
    }
    expect(priceStep(llmStep({ url: OPENAI, model: 'gpt-4o', usage }), options)?.usd).toBeCloseTo(0.024, 12)
    const azure = llmStep({
      url: 'https://acme.openai.azure.com/openai/deployments/x/chat/completions',
      model: 'gpt-4o',
      usage,
    })
    expect(priceStep(azure, options)?.usd).toBeCloseTo(0.012, 12)
  })

  it('takes prices from options (the config file) alone', () => {
    const cost = priceStep(llmStep({ url: OPENAI, model: 'my-model', usage }), {
      prices: { 'my-model': { input: 0.5, output: 1.5 } },
    })
    expect(cost).toEqual({ usd: (10_000 * 0.5 + 2_000 * 1.5) / M, catalog: 'user' })
  })

  it('refuses an invalid price in options with E_CONFIG_INVALID, naming the key', () => {
    const bad = { prices: { 'my-model': { input: -1, output: 1 } } }
    const step = llmStep({ url: OPENAI, model: 'my-model', usage })
    expect(() => priceStep(step, bad)).toThrow(/prices\['my-model'\]/)
    try {
      priceStep(step, bad)
    } catch (err) {
      expect(isCrashlabError(err, 'E_CONFIG_INVALID')).toBe(true)
    }
  })
})
