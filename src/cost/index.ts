/**
 * Cost estimates: each LLM step and each run priced in USD from a pinned price catalog
 * (`@pydantic/genai-prices`), with the catalog's name, version and the price date stored beside every
 * figure; $0 for local endpoints; no cost, never a guess, for a model nobody priced; user prices with
 * `setPrice` or the config file's `prices`.
 */

export { CATALOG, type CatalogInfo } from './catalog.ts'
export { formatUsd } from './format-usd.ts'
export { isLocalEndpoint } from './local-endpoint.ts'
export { type PriceOverride, PriceOverrideSchema } from './price-override.ts'
export { priceRun, unpricedSteps } from './price-run.ts'
export { type PriceOptions, priceStep } from './price-step.ts'
export { clearPrices, type PriceMatch, setPrice } from './set-price.ts'
