import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  type AIMessage,
  type AIMessageChunk,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
} from '@langchain/core/messages'
import { tool as lcTool } from '@langchain/core/tools'
import { ChatOpenAI } from '@langchain/openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { LlmStep, Run } from '../src/case/index.ts'
import { tool } from '../src/engine/index.ts'
import { type Interceptor, startInterceptor } from '../src/interceptor/index.ts'
import { recordToCassette, replayFromCassette } from './helpers/cassette-round-trip.ts'
import { FINAL_TEXT, GET_ORDER, ORDER, QUESTION, SYSTEM } from './helpers/refund.ts'
import { useScriptedProvider } from './helpers/scripted-harness.ts'

/**
 * LangChain.js (`@langchain/openai` ChatOpenAI with bound tools) through crashlab's MSW interceptor:
 * no wrap(), no custom fetch. A tool loop is recorded against the scripted provider into a cassette,
 * then replayed from it with the provider receiving zero requests and the tool not running.
 */

const server = useScriptedProvider()
let interceptor: Interceptor
let dir: string
// After the provider's beforeAll: the interceptor's hosts are fixed when it starts.
beforeAll(() => {
  interceptor = startInterceptor({ hosts: [server.url] })
  dir = mkdtempSync(join(tmpdir(), 'crashlab-langchain-'))
})
afterAll(async () => {
  await interceptor.close()
  rmSync(dir, { recursive: true, force: true })
})

const LOOKUP = { toolCalls: [{ name: 'get_order', args: { order_id: 'A17' }, id: 'call_A17' }] }

/** A LangChain tool loop, as people write it: bindTools, invoke, run the tool calls, invoke again. */
function refundAgent(options: { streaming: boolean; useResponsesApi: boolean }) {
  let toolRuns = 0
  // crashlab's tool(): recorded at record time, served from the cassette at replay (never run again).
  const getOrder = tool(
    async (args: { order_id: string }) => {
      toolRuns++
      return { ...ORDER, order_id: args.order_id }
    },
    { name: 'get_order', sideEffects: false },
  )
  // A zod schema, as LangChain's docs write tools; invoke(toolCall) answers with a ToolMessage.
  const getOrderTool = lcTool(async (args) => JSON.stringify(await getOrder(args)), {
    name: GET_ORDER.name,
    description: GET_ORDER.description ?? '',
    schema: z.object({ order_id: z.string().describe('The order id, e.g. A17') }),
  })
  const run = async () => {
    // ChatOpenAI makes its OpenAI client (and takes `fetch`) at the first call, not here.
    const model = new ChatOpenAI({
      model: 'gpt-4o-mini',
      apiKey: 'sk-test-not-a-secret',
      configuration: { baseURL: `${server.url}/v1` },
      maxRetries: 0,
      streaming: options.streaming,
      useResponsesApi: options.useResponsesApi,
    }).bindTools([getOrderTool])
    const messages: BaseMessage[] = [new SystemMessage(SYSTEM), new HumanMessage(QUESTION)]
    const calls: Array<{ name: string; args: unknown }> = []
    for (let turn = 0; turn < 4; turn++) {
      const reply = options.streaming ? await streamed(model, messages) : await model.invoke(messages)
      messages.push(reply)
      if (!reply.tool_calls?.length) return { answer: reply.text, calls }
      for (const call of reply.tool_calls) {
        calls.push({ name: call.name, args: call.args })
        messages.push(await getOrderTool.invoke(call))
      }
    }
    throw new Error('the agent did not finish in 4 turns')
  }
  return { run, toolRuns: () => toolRuns }
}

/**
 * A streaming agent reads `model.stream()` and adds the chunks up. (`invoke()` on a model built with
 * `streaming: true` also streams, but then estimates token counts with js-tiktoken, which downloads
 * its encoder from tiktoken.pages.dev: see docs/interceptor.md, "Frameworks".)
 */
async function streamed(
  model: { stream(messages: BaseMessage[]): Promise<AsyncIterable<AIMessageChunk>> },
  messages: BaseMessage[],
): Promise<AIMessage> {
  let reply: AIMessageChunk | undefined
  for await (const chunk of await model.stream(messages)) reply = reply ? reply.concat(chunk) : chunk
  if (!reply) throw new Error('the stream was empty')
  return reply
}

const record = <T>(name: string, agent: () => Promise<T>) => recordToCassette(dir, name, agent)
const replay = <T>(recorded: Run, agent: () => Promise<T>) =>
  replayFromCassette(recorded, agent, 'langchain replay')

describe('LangChain.js ChatOpenAI through the interceptor', () => {
  const variants = [
    { label: 'chat completions', streaming: false, useResponsesApi: false, provider: 'openai-chat' },
    {
      label: 'chat completions, streaming',
      streaming: true,
      useResponsesApi: false,
      provider: 'openai-chat',
    },
    { label: 'responses API', streaming: false, useResponsesApi: true, provider: 'openai-responses' },
  ] as const
  for (const variant of variants) {
    it(`bindTools + invoke in a tool loop (${variant.label}): recorded, then replayed with zero requests`, async () => {
      server.script(LOOKUP, { text: FINAL_TEXT })
      const agent = refundAgent(variant)
      const rec = await record(`langchain-${variant.label}`, agent.run)
      expect(rec.output).toEqual({
        answer: FINAL_TEXT,
        calls: [{ name: 'get_order', args: { order_id: 'A17' } }],
      })
      expect(server.calls()).toHaveLength(2)
      expect(agent.toolRuns()).toBe(1)
      expect(rec.run.steps.map((s) => s.type)).toEqual(['llm', 'tool', 'llm'])
      const [first, , last] = rec.run.steps as [LlmStep, unknown, LlmStep]
      expect(first.provider).toBe(variant.provider)
      if (variant.streaming) expect(first.response?.wire.chunks?.length).toBeGreaterThan(2)
      else expect(first.response?.wire.chunks).toBeUndefined()
      expect(first.response?.normalized?.toolCalls.map((c) => [c.name, c.args])).toEqual([
        ['get_order', { order_id: 'A17' }],
      ])
      // The second request carries the tool's result back to the model.
      const results = last.request.normalized?.messages
        .flatMap((m) => m.parts)
        .filter((p) => p.type === 'tool_result')
      expect(results?.map((p) => p.type === 'tool_result' && [p.id, JSON.parse(String(p.content))])).toEqual([
        ['call_A17', ORDER],
      ])

      server.script()
      const replaying = refundAgent(variant)
      expect(await replay(rec.run, replaying.run)).toEqual(rec.output)
      expect(server.calls()).toHaveLength(0)
      expect(replaying.toolRuns()).toBe(0)
    })
  }

  it('a replay whose conversation changed diverges instead of reaching the provider', async () => {
    server.script(LOOKUP, { text: FINAL_TEXT })
    const rec = await record(
      'langchain-divergence',
      refundAgent({ streaming: false, useResponsesApi: false }).run,
    )
    server.script()
    const changed = async () => {
      const model = new ChatOpenAI({
        model: 'gpt-4o-mini',
        apiKey: 'sk-test-not-a-secret',
        configuration: { baseURL: `${server.url}/v1` },
        maxRetries: 0,
      })
      return model.invoke([new HumanMessage('Something else entirely')])
    }
    await expect(replay(rec.run, changed)).rejects.toThrow(/diverge/i)
    expect(server.calls()).toHaveLength(0)
  })
})
