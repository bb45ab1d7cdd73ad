import type { NormalizedRequest } from '../../../src/case/schema/normalized.ts'
import type { ScriptedTurn } from '../../../src/testing/index.ts'

/** The scripted model of the fixture: looks the order up, then reports its status. */
export function orderModel(request: NormalizedRequest): ScriptedTurn {
  const last = request.messages.at(-1)
  const result = last?.parts.find((p) => p.type === 'tool_result')
  if (result?.type === 'tool_result') {
    const data = JSON.parse(result.content) as { order_id: string; status: string }
    return { text: `Order ${data.order_id} is ${data.status}.` }
  }
  const text = last?.parts.map((p) => (p.type === 'text' ? p.text : '')).join(' ') ?? ''
  const orderId = /\b([A-Z]\d{2})\b/.exec(text)?.[1] ?? 'A17'
  return { toolCalls: [{ name: 'get_order', args: { order_id: orderId } }] }
}
