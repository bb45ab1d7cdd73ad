import type { Cost, LlmStep } from '../../case/schema/step.ts'
import { CrashlabError } from '../../errors.ts'
import { CATALOG, catalogProviderOf, catalogUsd } from '../catalog.ts'
import { isLocalEndpoint } from '../local-endpoint.ts'
import { type PriceOverride, PriceOverrideSchema, usdAtPrice } from '../price-override.ts'
import { priceKey, registeredPrices } from '../set-price.ts'
import { roundUsd } from './round-usd.ts'

/**
 * Options of `priceStep` and `priceRun`.
 *
 * @example
 * const options: PriceOptions = { prices: { 'my-finetune': { input: 3, output: 12 } } }
 * priceRun(run, options)
 */
export interface PriceOptions {
  /**
   * Prices in USD per million tokens, keyed like `setPrice`'s match: a model id (`gpt-4o`) or
   * `host-or-provider/model` (`api.groq.com/llama-3.3-70b-versatile`, `groq/…`). The config file's
   * `prices` key arrives here.
   */
  prices?: Record<string, PriceOverride>
}

/**
 * A function that prices LLM steps with the given options (the option prices are checked and keyed
 * once, not per step). The order of the rules is the contract: a user's price, then $0 for a local
 * endpoint, then the catalog; what none of them knows has no cost (null), never a guess.
 *
 * @example
 * const price = createPricer({ prices: { 'my-model': { input: 1, output: 2 } } })
 * run.steps.filter((s) => s.type === 'llm').map(price)
 */
export function createPricer(options: PriceOptions = {}): (step: LlmStep) => Cost | null {
  const configured = new Map<string, PriceOverride>()
  for (const [match, price] of Object.entries(options.prices ?? {})) {
    const parsed = PriceOverrideSchema.safeParse(price)
    if (!parsed.success) {
      throw new CrashlabError(
        'E_CONFIG_INVALID',
        `prices['${match}'] is not a price in USD per million tokens ({ input, output, cachedInput?, ` +
          `cacheWrite?, reasoning? }, each a number ≥ 0); fix it in the config file's \`prices\`.`,
        { subject: match, cause: parsed.error },
      )
    }
    configured.set(priceKey(match), parsed.data)
  }

  return (step) => {
    const usage = step.response?.normalized?.usage
    if (!usage) return null // an error, a cut stream, a server that reports nothing: nothing to price
    const url = step.request.wire.url
    const served = step.response?.normalized?.model || undefined
    const requested = step.request.normalized?.model || undefined
    const registered = registeredPrices()
    let providerId: string | undefined
    if (registered.size > 0 || configured.size > 0) {
      providerId = catalogProviderOf(url)
      for (const key of overrideKeys(url, providerId, step.provider, [served, requested])) {
        const price = registered.get(key) ?? configured.get(key)
        if (price) return { usd: roundUsd(usdAtPrice(usage, price)), catalog: 'user' }
      }
    }
    if (isLocalEndpoint(url)) return { usd: 0, catalog: 'local' }
    // The provider bills the model it served (a dated snapshot of an alias): price that one.
    const model = served ?? requested
    providerId ??= catalogProviderOf(url)
    if (model === undefined || providerId === undefined) return null
    const usd = catalogUsd(usage, model, providerId, new Date(step.timing.startedAt))
    if (usd === null) return null
    return {
      usd: roundUsd(usd),
      catalog: CATALOG.name,
      catalogVersion: CATALOG.version,
      priceDate: step.timing.startedAt,
    }
  }
}

/**
 * The keys a user's price may be stored under for a step, most specific first: each model (served,
 * then requested) behind each name of its provider (host with port, host, catalog id, adapter), then
 * each model alone.
 */
function overrideKeys(
  url: string,
  providerId: string | undefined,
  adapter: string,
  models: ReadonlyArray<string | undefined>,
): string[] {
  let hosts: string[] = []
  try {
    const parsed = new URL(url)
    hosts = [parsed.host, parsed.hostname]
  } catch {
    // Not a URL: the provider can still be named by its adapter.
  }
  const names = unique([...hosts, providerId, adapter])
  const ids = unique([...models])
  return [...ids.flatMap((model) => names.map((name) => `${name}/${model}`)), ...ids]
}

function unique(values: ReadonlyArray<string | undefined>): string[] {
  return [...new Set(values.filter((v): v is string => !!v).map((v) => v.toLowerCase()))]
}
