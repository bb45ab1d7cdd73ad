import OpenAI from 'openai'
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions'
import type { Run } from '../../case/schema/run.ts'
import { applyOracles } from '../../checks/oracles/apply-oracles.ts'
import { RuntimeChecks } from '../../checks/runtime/runtime-checks.ts'
import { runInSession } from '../../engine/context.ts'
import { Session } from '../../engine/session.ts'
import { tool } from '../../engine/tool.ts'
import { wrap } from '../../engine/wrap.ts'
import { startScriptedProvider } from '../../testing/start-scripted-provider.ts'
import { PLANTED_SECRET, XSS_PROMPT, XSS_RESULT } from './test-fixtures.ts'

/**
 * Records a real failing run for the browser test: a small refund agent on the OpenAI SDK, talking to
 * crashlab's scripted provider on loopback, under a recording Session with the runtime checks and an
 * oracle. The model asks for ten times the order total, the refund tool refuses (it throws), the agent
 * apologizes, and the oracle fails the run. Steps: llm, get_order, llm, issue_refund (threw), llm.
 */
export async function recordFailingRun(): Promise<Run> {
  const provider = await startScriptedProvider({
    turns: [
      { toolCalls: [{ name: 'get_order', args: { order_id: 'A17' } }] },
      {
        text: 'The order arrived damaged; refunding it.',
        toolCalls: [{ name: 'issue_refund', args: { order_id: 'A17', amount: 490 } }],
      },
      { text: 'Sorry, I could not refund order A17.' },
    ],
  })
  try {
    const client = wrap(new OpenAI({ baseURL: `${provider.url}/v1`, apiKey: PLANTED_SECRET, maxRetries: 0 }))
    const getOrder = tool(
      async (args: { order_id: string }) => ({ order_id: args.order_id, total: 49, note: XSS_RESULT }),
      {
        name: 'get_order',
        sideEffects: false,
      },
    )
    const issueRefund = tool(
      async (args: { order_id: string; amount: number }) => {
        if (args.amount > 49)
          throw new RangeError(`amount ${args.amount} exceeds the order total 49 <script>alert(1)</script>`)
        return { refund_id: 'rf_1' }
      },
      { name: 'issue_refund', sideEffects: true },
    )
    const tools: ChatCompletionTool[] = ['get_order', 'issue_refund'].map((name) => ({
      type: 'function',
      function: {
        name,
        parameters: {
          type: 'object',
          properties: { order_id: { type: 'string' }, amount: { type: 'number' } },
        },
      },
    }))

    const agent = async (input: string): Promise<string> => {
      const messages: ChatCompletionMessageParam[] = [
        { role: 'system', content: 'You are a refund assistant. Never refund more than the order total.' },
        { role: 'user', content: `${input} (my key is ${PLANTED_SECRET})` },
      ]
      for (let turn = 0; turn < 5; turn++) {
        const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools })
        const message = completion.choices[0]!.message
        messages.push(message)
        if (!message.tool_calls?.length) return message.content ?? ''
        for (const call of message.tool_calls) {
          if (call.type !== 'function') continue
          const args = JSON.parse(call.function.arguments)
          let content: string
          try {
            content = JSON.stringify(
              call.function.name === 'get_order' ? await getOrder(args) : await issueRefund(args),
            )
          } catch (error) {
            content = JSON.stringify({ error: (error as Error).message })
          }
          messages.push({ role: 'tool', tool_call_id: call.id, content })
        }
      }
      return 'gave up'
    }

    const checks = new RuntimeChecks()
    const session = new Session({
      mode: 'record',
      name: 'refund-bot',
      input: XSS_PROMPT,
      hooks: checks.hooks,
    })
    const output = await runInSession(session, () => agent(XSS_PROMPT))
    const run = checks.finalize(await session.finish({ output }))
    const graded = await applyOracles(run, {
      oracles: [
        function refundNeverExceedsTotal(view) {
          const over = view.toolCalls('issue_refund').filter((c) => c.args.amount > 49)
          return (
            over.length === 0 ||
            `asked to refund ${over.map((c) => c.args.amount).join(', ')} for an order of 49`
          )
        },
      ],
    })
    return graded.run
  } finally {
    await provider.close()
  }
}
