// The shared half of the fork-apis fixture: the agent's two crashlab tools (a pure order lookup and a
// side-effect refund whose real runs are counted on globalThis, per API, so the test and the copy of
// the module Vite's runner loads for a fork share one counter), its prompt and tool definitions, and
// the scripted model that drives all four agents.
import type { NormalizedRequest } from '../../../src/case/schema/normalized.ts'
import { tool } from '../../../src/engine/tool.ts'
import type { ScriptedTurn } from '../../../src/testing/index.ts'

export type Api = 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini'

export interface AgentInput {
  question: string
  /** The origin of the provider the run was recorded against (each agent adds its SDK's path). */
  url: string
}

export const SYSTEM = 'You are the refund bot.'
export const MODEL = 'scripted-1'

export const TOOL_DEFS = [
  {
    name: 'get_order',
    description: 'Looks an order up.',
    parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
  },
  {
    name: 'issue_refund',
    description: 'Refunds an order.',
    parameters: {
      type: 'object',
      properties: { order_id: { type: 'string' }, amount: { type: 'number' } },
      required: ['order_id', 'amount'],
    },
  },
]

const COUNTER = Symbol.for('crashlab.fork-apis-fixture.refunds')
const counters = globalThis as { [COUNTER]?: Record<string, number> }
counters[COUNTER] ??= {}

/** How many times `issue_refund` really ran for the agent of `api` in this process. */
export function refundRuns(api: Api): number {
  return counters[COUNTER]![api] ?? 0
}

const ORDERS: Record<string, { status: string; total: number }> = { A17: { status: 'broken', total: 10 } }

/** The agent's tools, the refund counted under the agent's API. */
export function toolsFor(api: Api) {
  const getOrder = tool(async ({ order_id }: { order_id: string }) => ({ order_id, ...ORDERS[order_id] }), {
    name: 'get_order',
    sideEffects: false,
  })
  const issueRefund = tool(
    async ({ order_id, amount }: { order_id: string; amount: number }) => {
      const all = counters[COUNTER]!
      all[api] = (all[api] ?? 0) + 1
      return { order_id, refunded: amount }
    },
    { name: 'issue_refund', sideEffects: true },
  )
  /** Runs the named tool; its error becomes `{ error }`, handed back to the model. */
  return async (name: string, args: unknown): Promise<Record<string, unknown>> => {
    try {
      const a = args as { order_id: string; amount: number }
      return name === 'get_order' ? await getOrder(a) : await issueRefund(a)
    } catch (error) {
      return { error: (error as Error).message }
    }
  }
}

/** A tool result's JSON; text that is not JSON (an error as OpenAI carries it) reads as `{ error }`. */
function parseResult(content: string): { order_id?: string; total?: number; error?: string } {
  try {
    return JSON.parse(content)
  } catch {
    return { error: content }
  }
}

/**
 * The scripted model: looks the order up, refunds its total, then reports what the refund tool said
 * ("The refund failed." when it returned an error).
 */
export function refundModel(request: NormalizedRequest): ScriptedTurn {
  const results = request.messages.flatMap((m) => m.parts.filter((p) => p.type === 'tool_result'))
  const last = results.at(-1)
  if (last?.type === 'tool_result') {
    const data = parseResult(last.content)
    if (data.total !== undefined && results.length === 1) {
      return {
        toolCalls: [{ name: 'issue_refund', args: { order_id: data.order_id ?? 'A17', amount: data.total } }],
      }
    }
    return { text: data.error ? 'The refund failed.' : `Done: ${last.content}` }
  }
  return { toolCalls: [{ name: 'get_order', args: { order_id: 'A17' } }] }
}
