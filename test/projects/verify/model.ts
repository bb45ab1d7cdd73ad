import type { NormalizedRequest } from '../../../src/case/schema/normalized.ts'
import type { PolicyContext, ScriptedTurn } from '../../../src/testing/index.ts'

/** The rule the fix adds to the system prompt. */
export const RULE = 'Always name the order id in your answer.'

/**
 * The scripted model of the verify fixture: looks the order up, then answers; the answer names the
 * order when the system prompt carries RULE, with probability `obey` (drawn from the provider's seeded
 * generator), and never without it. Like many models, it is thrown by an instruction given twice: a
 * system prompt with RULE twice makes it refuse, so the fix breaks a run that already had the rule.
 * With `rateLimited`, the calls of the runs without the rule get a 429 instead. With `unprompted`, the
 * answer names the order without the rule too, with that probability.
 */
export function supportModel(obey: number, options: { rateLimited?: boolean; unprompted?: number } = {}) {
  return (request: NormalizedRequest, { rng }: PolicyContext): ScriptedTurn => {
    const system = request.system.map((p) => (p.type === 'text' ? p.text : '')).join('\n')
    const result = request.messages.at(-1)?.parts.find((p) => p.type === 'tool_result')
    if (result?.type !== 'tool_result')
      return { toolCalls: [{ name: 'get_order', args: { order_id: 'A17' } }] }
    if (system.split(RULE).length > 2) return { text: 'I cannot help with that.' }
    if (options.rateLimited && !system.includes(RULE)) return { fault: { type: 'rate_limit' } }
    if (rng.chance(system.includes(RULE) ? obey : (options.unprompted ?? 0)))
      return { text: 'Order A17 has shipped.' }
    return { text: 'Your order has shipped.' }
  }
}

/** The fix the scripted fixer proposes: the rule, appended to the system prompt. */
export const RULE_FIX = { kind: 'system_prompt', op: 'append', text: RULE } as const

/**
 * supportModel(obey), and the fixer model too: a request whose system prompt starts as the fixer's does
 * gets RULE_FIX as its one proposal.
 */
export function supportAndFixerModel(obey: number) {
  const agent = supportModel(obey)
  return (request: NormalizedRequest, ctx: PolicyContext): ScriptedTurn => {
    const system = request.system.map((p) => (p.type === 'text' ? p.text : '')).join('\n')
    if (system.startsWith('You fix failed runs')) {
      return {
        text: JSON.stringify({
          fixes: [
            { patch: RULE_FIX, rationale: 'Ask for the id.', expected_effect: 'The answer names the order.' },
          ],
        }),
      }
    }
    return agent(request, ctx)
  }
}
