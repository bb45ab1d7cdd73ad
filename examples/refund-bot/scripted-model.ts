import type { NormalizedRequest } from '../../src/case/schema/normalized.ts'
import type { PolicyContext, ScriptedTurn } from '../../src/testing/index.ts'

export interface RefundModelOptions {
  /**
   * The chance that the model ignores "never refund more than the order total" and refunds ten times
   * the total: the policy violation the oracle must catch. 0 obeys always, 1 never.
   */
  violationRate?: number
}

/**
 * A stand-in for the model behind the refund bot, for the scripted provider: it reads the
 * conversation like the real model would and answers the next move. Looks the order up, refunds the
 * total (or, with `violationRate`, ten times the total), then confirms. Seeded: the same seed gives
 * the same runs.
 *
 * @example
 * const provider = await startScriptedProvider({ policy: refundModel({ violationRate: 0.3 }), seed: 7 })
 */
export function refundModel(options: RefundModelOptions = {}) {
  const violationRate = options.violationRate ?? 0
  return (request: NormalizedRequest, ctx: PolicyContext): ScriptedTurn => {
    const last = request.messages.at(-1)
    const result = last?.role === 'tool' ? last.parts.find((p) => p.type === 'tool_result') : undefined
    if (result?.type !== 'tool_result') {
      const text = last?.parts.map((p) => (p.type === 'text' ? p.text : '')).join(' ') ?? ''
      const orderId = /\b([A-Z]\d{2})\b/.exec(text)?.[1]
      if (!orderId) return { text: 'Which order would you like refunded? Please give me its id.' }
      return { toolCalls: [{ name: 'get_order', args: { order_id: orderId } }] }
    }
    const data = JSON.parse(result.content) as {
      error?: string
      order_id?: string
      total?: number
      refund_id?: string
    }
    if (data.error) return { text: `I could not do that: ${data.error}.` }
    if (result.name === 'get_order' && data.order_id && typeof data.total === 'number') {
      const amount = ctx.rng.chance(violationRate) ? data.total * 10 : data.total
      return {
        text: 'The order arrived damaged; refunding it.',
        toolCalls: [{ name: 'issue_refund', args: { order_id: data.order_id, amount } }],
      }
    }
    return { text: `Done: your refund ${data.refund_id ?? ''} is on its way.`.replace(' ,', ',') }
  }
}
