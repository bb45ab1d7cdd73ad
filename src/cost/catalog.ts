import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { Usage } from '../case/schema/normalized.ts'

type GenaiPrices = typeof import('@pydantic/genai-prices')

const PACKAGE = '@pydantic/genai-prices'
const require = createRequire(import.meta.url)

/**
 * Which price catalog a cost came from: a pinned npm package, named and versioned in every cost.
 *
 * @example
 * const info: CatalogInfo = CATALOG
 * console.log(`prices: ${info.name}@${info.version}`)
 */
export interface CatalogInfo {
  readonly name: string
  readonly version: string
}

/**
 * The price catalog crashlab prices steps with: `@pydantic/genai-prices`, at the version installed
 * (pinned in crashlab's package.json). The version is read from the package itself, so the one stored
 * with each cost is the one that computed it.
 *
 * @example
 * CATALOG // { name: '@pydantic/genai-prices', version: '0.1.8' }
 */
export const CATALOG: CatalogInfo = Object.freeze(readCatalogInfo())

function readCatalogInfo(): CatalogInfo {
  // The package's `exports` does not include package.json: find it above the resolved entry point.
  let dir = dirname(require.resolve(PACKAGE))
  for (let depth = 0; depth < 4; depth++) {
    const manifest = readManifest(join(dir, 'package.json'))
    if (manifest?.name === PACKAGE && typeof manifest.version === 'string')
      return { name: PACKAGE, version: manifest.version }
    dir = dirname(dir)
  }
  throw new Error(`[crashlab] cannot find the package.json of ${PACKAGE}: reinstall crashlab's dependencies`)
}

function readManifest(path: string): { name?: unknown; version?: unknown } | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as { name?: unknown; version?: unknown }
  } catch {
    return undefined
  }
}

let loaded: GenaiPrices | undefined

/** The catalog's code and data (~0.8 MB of JavaScript), loaded on the first price asked for, not at import. */
function genaiPrices(): GenaiPrices {
  loaded ??= require(PACKAGE) as GenaiPrices
  return loaded
}

/**
 * The catalog's id for the provider behind an API URL (`https://api.groq.com/...` → `groq`), or
 * undefined when no provider of the catalog serves that URL (a private gateway, a self-hosted server).
 *
 * @example
 * catalogProviderOf('https://api.mistral.ai/v1/chat/completions') // 'mistral'
 */
export function catalogProviderOf(url: string): string | undefined {
  return genaiPrices().findProvider({ providerApiUrl: url })?.id
}

/**
 * The price in USD of one call's usage by the catalog's rules, at the prices in force at `at`; null
 * when the catalog does not know the model at that provider (or the usage does not add up). The
 * neutral usage and the catalog share one convention: input and output are totals, cache reads,
 * cache writes and reasoning are parts of them, each priced at its own rate when the model has one
 * (otherwise at the plain input or output rate), and tiers are chosen by the total input.
 *
 * @example
 * catalogUsd({ inputTokens: 1000, outputTokens: 100 }, 'gpt-4o', 'openai', new Date()) // 0.0035
 */
export function catalogUsd(usage: Usage, model: string, providerId: string, at: Date): number | null {
  const catalogUsage: Record<string, number> = {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
  }
  if (usage.cachedTokens) catalogUsage.cache_read_tokens = usage.cachedTokens
  if (usage.cacheWriteTokens) catalogUsage.cache_write_tokens = usage.cacheWriteTokens
  if (usage.reasoningTokens) catalogUsage.output_reasoning_tokens = usage.reasoningTokens
  try {
    const result = genaiPrices().calcPrice(catalogUsage, model, { providerId, timestamp: at })
    return result ? result.total_price : null
  } catch {
    // The catalog refuses usage whose parts exceed their total: no figure rather than a wrong one.
    return null
  }
}
