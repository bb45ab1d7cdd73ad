import type { Cost, LlmStep } from '../case/schema/step.ts'
import { createPricer, type PriceOptions } from './internal/pricer.ts'

export type { PriceOptions } from './internal/pricer.ts'

/**
 * The cost of one LLM call in USD, with where the price came from, or null when it is unknown.
 *
 * 1. A user's price (`setPrice`, or `options.prices` from the config file) for the model, served or
 *    requested, at this provider or anywhere: `{ usd, catalog: 'user' }`.
 * 2. A local endpoint (localhost, loopback, `*.local`, Ollama's port 11434): `{ usd: 0, catalog: 'local' }`.
 * 3. The catalog (`CATALOG`), for the provider the URL belongs to and the model it served, at the
 *    prices in force when the step started: `{ usd, catalog, catalogVersion, priceDate }`, where
 *    `priceDate` is that instant, so that the same catalog version gives the same figure again.
 *
 * Null when the step has no usage (an error, a cut stream), when the host is no provider the catalog
 * knows (a private gateway: price it with `setPrice('gateway.host/model', …)`), or when the catalog
 * does not know the model. Cached input, cache writes and reasoning output are priced at their own
 * rates where the model has them; tiered prices follow the request's input size.
 *
 * @example
 * const cost = priceStep(step)
 * // { usd: 0.0035, catalog: '@pydantic/genai-prices', catalogVersion: '0.1.8', priceDate: '2026-11-01T09:00:00.100Z' }
 */
export function priceStep(step: LlmStep, options?: PriceOptions): Cost | null {
  return createPricer(options)(step)
}
