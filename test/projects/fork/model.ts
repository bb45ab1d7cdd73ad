import type { NormalizedRequest } from '../../../src/case/schema/normalized.ts'
import type { ScriptedTurn } from '../../../src/testing/index.ts'

/**
 * The scripted model of the fork fixture: looks the order up, refunds its total (half of it when the
 * system prompt says "Refund half."), then reports what the refund tool said.
 */
export function refundModel(request: NormalizedRequest): ScriptedTurn {
  const system = request.system.map((p) => (p.type === 'text' ? p.text : '')).join('\n')
  const result = request.messages.at(-1)?.parts.find((p) => p.type === 'tool_result')
  if (result?.type === 'tool_result') {
    const data = JSON.parse(result.content) as { order_id?: string; total?: number; error?: string }
    if (data.total !== undefined) {
      const amount = system.includes('Refund half.') ? data.total / 2 : data.total
      return { toolCalls: [{ name: 'issue_refund', args: { order_id: data.order_id ?? 'A17', amount } }] }
    }
    return { text: data.error ? 'The refund failed.' : `Done: ${result.content}` }
  }
  return { toolCalls: [{ name: 'get_order', args: { order_id: 'A17' } }] }
}
