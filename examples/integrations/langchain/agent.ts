import {
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  type ToolCall,
  ToolMessage,
} from '@langchain/core/messages'
import { tool } from '@langchain/core/tools'
import { ChatOpenAI } from '@langchain/openai'
import { z } from 'zod'
import { createShop, INSTRUCTIONS, type Shop } from '../shared/shop.ts'
import { GET_ORDER_DESCRIPTION, ISSUE_REFUND_DESCRIPTION, supportTools } from '../shared/tools.ts'

export interface SupportAgentOptions {
  /** The OpenAI-compatible base URL, with its `/v1`: the scripted provider's in the examples. */
  baseURL: string
  shop?: Shop
  model?: string
  /** The most model calls before the agent gives up. */
  maxTurns?: number
}

/**
 * A support agent on LangChain.js: `ChatOpenAI` with two bound tools, in the tool loop LangChain's docs
 * write by hand (invoke, run each tool call with `tool.invoke(call)`, which answers a ToolMessage,
 * invoke again). Chat Completions, not streamed: see README.md for `streaming: true`.
 *
 * @example
 * const { answer } = await runSupportAgent('Refund my order A17, it arrived broken', { baseURL: 'http://127.0.0.1:4000/v1' })
 */
export async function runSupportAgent(input: string, options: SupportAgentOptions) {
  const { getOrder, issueRefund } = supportTools(options.shop ?? createShop())
  const getOrderTool = tool(async (args) => JSON.stringify(await getOrder(args)), {
    name: 'get_order',
    description: GET_ORDER_DESCRIPTION,
    schema: z.object({ order_id: z.string().describe('The order id, e.g. A17') }),
  })
  const issueRefundTool = tool(async (args) => JSON.stringify(await issueRefund(args)), {
    name: 'issue_refund',
    description: ISSUE_REFUND_DESCRIPTION,
    schema: z.object({ order_id: z.string(), amount: z.number() }),
  })
  // `tool.invoke(toolCall)` parses the arguments, runs the tool and answers a ToolMessage.
  const runTool: Record<string, (call: ToolCall) => Promise<ToolMessage>> = {
    get_order: (call) => getOrderTool.invoke(call),
    issue_refund: (call) => issueRefundTool.invoke(call),
  }
  // ChatOpenAI makes its OpenAI client (and takes `fetch`) at its first call, not here.
  const model = new ChatOpenAI({
    model: options.model ?? 'gpt-4o-mini',
    apiKey: 'sk-example-not-a-key',
    configuration: { baseURL: options.baseURL },
    maxRetries: 0,
  }).bindTools([getOrderTool, issueRefundTool])
  const messages: BaseMessage[] = [new SystemMessage(INSTRUCTIONS), new HumanMessage(input)]
  const called: string[] = []
  for (let turn = 0; turn < (options.maxTurns ?? 6); turn++) {
    const reply = await model.invoke(messages)
    messages.push(reply)
    if (!reply.tool_calls?.length) return { answer: reply.text, tools: called }
    for (const call of reply.tool_calls) {
      called.push(call.name)
      const run = runTool[call.name]
      messages.push(
        run
          ? await run(call)
          : new ToolMessage({ tool_call_id: call.id ?? '', content: `unknown tool ${call.name}` }),
      )
    }
  }
  throw new Error(`the support agent did not finish in ${options.maxTurns ?? 6} model calls`)
}
