import type { ScriptPolicy } from '../../../src/testing/index.ts' // in your project: 'crashlab/testing'

export interface SupportModelOptions {
  /**
   * The chance that the model ignores "never refund more than the order total" and refunds ten times
   * the total, drawn from the provider's seeded generator: 0 obeys always, 1 never.
   */
  violationRate?: number
}

/**
 * A stand-in for the model behind every integration's support agent, for the scripted provider. It
 * reads the conversation as the provider adapter normalized it, so the same policy answers the
 * Vercel AI SDK, the OpenAI Agents SDK, LangChain.js and Mastra whichever wire API they speak (chat
 * completions or Responses): look the order up, refund its total, confirm with the refund id.
 *
 * @example
 * const provider = await startScriptedProvider({ policy: supportModel({ violationRate: 0 }), seed: 1 })
 */
export function supportModel(options: SupportModelOptions = {}): ScriptPolicy {
  const violationRate = options.violationRate ?? 0
  return (request, ctx) => {
    const last = request.messages.at(-1)
    const result = last?.role === 'tool' ? last.parts.find((p) => p.type === 'tool_result') : undefined
    if (result?.type !== 'tool_result') {
      const text = last?.parts.map((p) => (p.type === 'text' ? p.text : '')).join(' ') ?? ''
      const orderId = /\b([A-Z]\d{2})\b/.exec(text)?.[1]
      if (!orderId) return { text: 'Which order is it about? Please give me its id.' }
      return { toolCalls: [{ name: 'get_order', args: { order_id: orderId } }] }
    }
    const data = readResult(result.content)
    if (typeof data.error === 'string') return { text: `I could not do that: ${data.error}.` }
    if (typeof data.refund_id === 'string') return { text: `Done: refund ${data.refund_id} is on its way.` }
    if (typeof data.order_id === 'string' && typeof data.total === 'number') {
      const amount = ctx.rng.chance(violationRate) ? data.total * 10 : data.total
      return {
        text: 'The order arrived damaged; refunding it.',
        toolCalls: [{ name: 'issue_refund', args: { order_id: data.order_id, amount } }],
      }
    }
    return { text: 'Something went wrong on my side; a human will get back to you.' }
  }
}

/**
 * A tool result as the framework sent it: JSON text, sometimes wrapped once more (a framework that
 * sends `{ type: 'json', value }` or a JSON string inside JSON).
 */
function readResult(content: string): Record<string, unknown> {
  let value: unknown = content
  for (let i = 0; i < 3 && typeof value === 'string'; i++) {
    try {
      value = JSON.parse(value)
    } catch {
      return { error: value as string }
    }
  }
  if (value && typeof value === 'object' && 'value' in value && (value as { type?: unknown }).type === 'json')
    value = (value as { value: unknown }).value
  return value && typeof value === 'object' ? (value as Record<string, unknown>) : {}
}
