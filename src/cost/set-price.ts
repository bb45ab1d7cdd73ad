import { CrashlabError } from '../errors.ts'
import { zod } from '../lazy-zod.ts'
import { type PriceOverride, PriceOverrideSchema } from './price-override.ts'

/**
 * Which calls a price is for: a model id (`gpt-4o`, `openai/gpt-4o` on OpenRouter), or a model at one
 * provider, named by its host (`api.groq.com`, `localhost:4000`), its catalog id (`groq`) or its
 * crashlab adapter (`openai-chat`).
 *
 * @example
 * const match: PriceMatch = { provider: 'api.groq.com', model: 'llama-3.3-70b-versatile' } // or 'groq/llama-3.3-70b-versatile'
 */
export type PriceMatch = string | { provider?: string; model: string }

// Process-wide, like the oracle registry, and on globalThis under a registered symbol for the same
// reason: two copies of crashlab in one process (the package and its source) share one table.
const KEY = Symbol.for('crashlab.prices')

function registry(): Map<string, PriceOverride> {
  const holder = globalThis as { [KEY]?: Map<string, PriceOverride> }
  holder[KEY] ??= new Map()
  return holder[KEY]
}

/**
 * The lookup key of a match: `provider/model` or `model`, lower-cased (model ids are case-insensitive
 * at every provider crashlab knows).
 *
 * @example
 * priceKey({ provider: 'Groq', model: 'Llama-3.3-70B' }) // 'groq/llama-3.3-70b'
 */
export function priceKey(match: PriceMatch): string {
  const key =
    typeof match === 'string' ? match : match.provider ? `${match.provider}/${match.model}` : match.model
  return key.trim().toLowerCase()
}

/**
 * Sets the price of a model, in USD per million tokens, for every step priced from now on in this
 * process. A user's price wins over the catalog and over the $0 of local endpoints; a price for a
 * model at a provider wins over one for the model alone; for the same key, `setPrice` wins over the
 * config file's `prices`. Setting a key again replaces its price.
 *
 * @example
 * setPrice('my-finetune', { input: 3, output: 12 })
 * setPrice({ provider: 'api.groq.com', model: 'llama-3.3-70b-versatile' }, { input: 0.59, output: 0.79 })
 * setPrice('localhost:4000/gpt-4o', { input: 2.5, output: 10, cachedInput: 1.25 }) // a local proxy that pays OpenAI
 */
export function setPrice(match: PriceMatch, price: PriceOverride): void {
  const key = priceKey(match)
  if (key === '' || key.endsWith('/')) {
    throw new CrashlabError(
      'E_CONFIG_INVALID',
      `setPrice needs a model id, as in setPrice('gpt-4o', { input: 2.5, output: 10 }); got ${JSON.stringify(match)}.`,
    )
  }
  const parsed = PriceOverrideSchema.safeParse(price)
  if (!parsed.success) {
    throw new CrashlabError(
      'E_CONFIG_INVALID',
      `setPrice('${key}'): a price is USD per million tokens, { input, output, cachedInput?, cacheWrite?, reasoning? }, ` +
        `each a number ≥ 0: ${zod.prettifyError(parsed.error)}`,
      { subject: key },
    )
  }
  registry().set(key, parsed.data)
}

/**
 * Forgets every price set with `setPrice`, so steps are priced from the catalog again.
 *
 * @example
 * afterEach(() => clearPrices())
 */
export function clearPrices(): void {
  registry().clear()
}

/** The prices set with `setPrice`, by key. */
export function registeredPrices(): ReadonlyMap<string, PriceOverride> {
  return registry()
}
