import { readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { isCrashlabError } from '../errors.ts'
import { CATALOG } from './catalog.ts'
import { PriceOverrideSchema } from './price-override.ts'
import { clearPrices, priceKey, registeredPrices, setPrice } from './set-price.ts'

afterEach(() => clearPrices())

describe('setPrice', () => {
  it('keys a price by model, or provider/model, lower-cased', () => {
    setPrice('GPT-4o', { input: 1, output: 2 })
    setPrice({ provider: 'api.groq.com', model: 'Llama-3.3-70B' }, { input: 3, output: 4 })
    setPrice({ model: 'mistral-large' }, { input: 5, output: 6 })
    expect([...registeredPrices().keys()]).toEqual(['gpt-4o', 'api.groq.com/llama-3.3-70b', 'mistral-large'])
    expect(priceKey({ provider: 'Groq', model: 'X' })).toBe('groq/x')
  })

  it('replaces the price of a key set again, and clearPrices forgets them all', () => {
    setPrice('m', { input: 1, output: 2 })
    setPrice('m', { input: 3, output: 4 })
    expect(registeredPrices().get('m')).toEqual({ input: 3, output: 4 })
    clearPrices()
    expect(registeredPrices().size).toBe(0)
  })

  it.each([
    [{ input: 1 }],
    [{ input: -1, output: 2 }],
    [{ input: 1, output: Number.NaN }],
    [{ input: 1, output: 2, cached: 0.5 }],
    [{ input: '1', output: 2 }],
  ])('refuses %j with E_CONFIG_INVALID', (price) => {
    expect(() => setPrice('m', price as never)).toThrow(/setPrice\('m'\)/)
    try {
      setPrice('m', price as never)
    } catch (err) {
      expect(isCrashlabError(err, 'E_CONFIG_INVALID')).toBe(true)
    }
    expect(registeredPrices().size).toBe(0)
  })

  it('refuses a match without a model', () => {
    expect(() => setPrice('  ', { input: 1, output: 1 })).toThrow(/needs a model id/)
    expect(() => setPrice({ provider: 'groq', model: '' }, { input: 1, output: 1 })).toThrow(
      /needs a model id/,
    )
  })
})

describe('PriceOverrideSchema', () => {
  it('takes input and output, with optional cache and reasoning rates', () => {
    const price = { input: 1, output: 2, cachedInput: 0.1, cacheWrite: 1.25, reasoning: 2 }
    expect(PriceOverrideSchema.parse(price)).toEqual(price)
    expect(PriceOverrideSchema.safeParse({ input: 1, output: 2, extra: 1 }).success).toBe(false)
  })
})

describe('CATALOG', () => {
  it('is the catalog package at the exact version crashlab pins', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'))
    expect(CATALOG.name).toBe('@pydantic/genai-prices')
    expect(pkg.dependencies[CATALOG.name]).toBe(CATALOG.version) // pinned: no range
  })
})
