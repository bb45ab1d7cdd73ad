import type { z } from 'zod'
import type { Usage } from '../case/schema/normalized.ts'
import { lazySchema, zod } from '../lazy-zod.ts'

const perMillion = lazySchema(() => zod.number().nonnegative())

/**
 * A price set by the user, in USD per million tokens. `input` and `output` are required; the others
 * default to them: `cachedInput` (cache reads) and `cacheWrite` (cache creation) to `input`,
 * `reasoning` to `output`. The project config file validates its `prices` key with this schema.
 *
 * @example
 * PriceOverrideSchema.parse({ input: 0.5, output: 1.5, cachedInput: 0.05 })
 */
export const PriceOverrideSchema = lazySchema(() =>
  zod.strictObject({
    /** Uncached input tokens. */
    input: perMillion,
    /** Output tokens (reasoning included unless `reasoning` is set). */
    output: perMillion,
    /** Input tokens read from the prompt cache; defaults to `input`. */
    cachedInput: perMillion.optional(),
    /** Input tokens written to the prompt cache; defaults to `input`. */
    cacheWrite: perMillion.optional(),
    /** Reasoning (thinking) output tokens; defaults to `output`. */
    reasoning: perMillion.optional(),
  }),
)

/**
 * USD per million tokens for a model, set with `setPrice` or the config file's `prices`.
 *
 * @example
 * const price: PriceOverride = { input: 0.5, output: 1.5 }
 */
export type PriceOverride = z.infer<typeof PriceOverrideSchema>

/**
 * What a call's usage costs at a user's price. Usage counts input and output as totals, with cache
 * reads, cache writes and reasoning inside them, so each part is taken out of its total and priced
 * at its own rate: no token is counted twice. Parts larger than their total (usage that does not add
 * up) are capped at it.
 *
 * @example
 * usdAtPrice({ inputTokens: 1000, outputTokens: 100, cachedTokens: 400 }, { input: 2, output: 8, cachedInput: 0.5 })
 * // (600 × 2 + 400 × 0.5 + 100 × 8) / 1e6 = 0.0022
 */
export function usdAtPrice(usage: Usage, price: PriceOverride): number {
  const cached = Math.min(usage.cachedTokens ?? 0, usage.inputTokens)
  const written = Math.min(usage.cacheWriteTokens ?? 0, usage.inputTokens - cached)
  const uncached = usage.inputTokens - cached - written
  const reasoning = Math.min(usage.reasoningTokens ?? 0, usage.outputTokens)
  const plainOutput = usage.outputTokens - reasoning
  const perToken =
    uncached * price.input +
    cached * (price.cachedInput ?? price.input) +
    written * (price.cacheWrite ?? price.input) +
    plainOutput * price.output +
    reasoning * (price.reasoning ?? price.output)
  return perToken / 1e6
}
