import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  Agent,
  tool as agentTool,
  OpenAIProvider,
  Runner,
  run,
  setDefaultOpenAIClient,
  setOpenAIAPI,
  setTracingDisabled,
} from '@openai/agents'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { LlmStep, Run, ToolStep } from '../src/case/index.ts'
import { tool } from '../src/engine/index.ts'
import { type Interceptor, startInterceptor } from '../src/interceptor/index.ts'
import { recordToCassette, replayFromCassette } from './helpers/cassette-round-trip.ts'
import { FINAL_TEXT, GET_ORDER, ORDER, ORDER_PARAMS, QUESTION, SYSTEM } from './helpers/refund.ts'
import { useScriptedProvider } from './helpers/scripted-harness.ts'

/**
 * The OpenAI Agents SDK (`@openai/agents`: an Agent with a function tool, `run()`) through crashlab's
 * MSW interceptor, against the scripted provider: a run is recorded into a cassette, then replayed from
 * it with the provider receiving zero requests and the tool not running again.
 */

// Trace export posts to api.openai.com/v1/traces/ingest after a run. Vitest sets NODE_ENV=test, which
// already turns tracing off in the SDK; this says so in the test (see docs/interceptor.md, "Frameworks").
setTracingDisabled(true)

const server = useScriptedProvider()
let interceptor: Interceptor
let dir: string
beforeAll(() => {
  interceptor = startInterceptor({ hosts: [server.url] })
  dir = mkdtempSync(join(tmpdir(), 'crashlab-agents-'))
})
afterAll(async () => {
  await interceptor.close()
  rmSync(dir, { recursive: true, force: true })
})

const LOOKUP = { toolCalls: [{ name: 'get_order', args: { order_id: 'A17' }, id: 'call_A17' }] }

function openaiClient(): OpenAI {
  return new OpenAI({ apiKey: 'sk-test-not-a-secret', baseURL: `${server.url}/v1`, maxRetries: 0 })
}

/** The refund agent: one function tool, whose body is a crashlab tool (replayed, never run again). */
function refundAgent() {
  let toolRuns = 0
  const getOrder = tool(
    async (args: { order_id: string }) => {
      toolRuns++
      return { ...ORDER, order_id: args.order_id }
    },
    { name: 'get_order', sideEffects: false },
  )
  const agent = new Agent({
    name: 'refund-bot',
    instructions: SYSTEM,
    model: 'gpt-4o-mini',
    tools: [
      agentTool({
        name: GET_ORDER.name,
        description: GET_ORDER.description ?? '',
        parameters: ORDER_PARAMS as never,
        strict: true,
        execute: async (args) => JSON.stringify(await getOrder(args as { order_id: string })),
      }),
    ],
  })
  return { agent, toolRuns: () => toolRuns }
}

const record = <T>(name: string, agent: () => Promise<T>) => recordToCassette(dir, name, agent)
const replay = <T>(recorded: Run, agent: () => Promise<T>) =>
  replayFromCassette(recorded, agent, 'agents replay')

/** What the agent did, from the SDK's own result: the tool calls it made and its final answer. */
function trajectory(result: { finalOutput?: unknown; newItems: Array<{ type: string; rawItem?: unknown }> }) {
  const calls = result.newItems
    .filter((item) => item.type === 'tool_call_item')
    .map((item) => {
      const raw = item.rawItem as { name: string; arguments: string }
      return { name: raw.name, args: JSON.parse(raw.arguments) as unknown }
    })
  return { answer: result.finalOutput, calls }
}

function expectRecordedRun(recorded: Run, provider: string): void {
  expect(recorded.steps.map((s) => s.type)).toEqual(['llm', 'tool', 'llm'])
  const [first, toolStep, last] = recorded.steps as [LlmStep, ToolStep, LlmStep]
  expect(first.provider).toBe(provider)
  expect(first.request.normalized?.tools.map((t) => t.name)).toEqual(['get_order'])
  expect(first.response?.normalized?.toolCalls.map((c) => [c.name, c.args])).toEqual([
    ['get_order', { order_id: 'A17' }],
  ])
  expect(toolStep).toMatchObject({ name: 'get_order', args: { order_id: 'A17' } })
  // The second model call carries the tool's output back.
  const results = last.request.normalized?.messages
    .flatMap((m) => m.parts)
    .filter((p) => p.type === 'tool_result')
  expect(results?.map((p) => p.type === 'tool_result' && [p.id, JSON.parse(p.content)])).toEqual([
    ['call_A17', ORDER],
  ])
}

describe('the OpenAI Agents SDK through the interceptor', () => {
  it('run(agent, input) with setDefaultOpenAIClient, Responses API: recorded, then replayed with zero requests', async () => {
    setOpenAIAPI('responses')
    setDefaultOpenAIClient(openaiClient())
    server.script(LOOKUP, { text: FINAL_TEXT })
    const recording = refundAgent()
    const rec = await record('agents-responses', async () => trajectory(await run(recording.agent, QUESTION)))
    expect(rec.output).toEqual({
      answer: FINAL_TEXT,
      calls: [{ name: 'get_order', args: { order_id: 'A17' } }],
    })
    expect(server.calls().map((c) => c.api)).toEqual(['openai-responses', 'openai-responses'])
    expect(recording.toolRuns()).toBe(1)
    expectRecordedRun(rec.run, 'openai-responses')

    server.script()
    const replaying = refundAgent()
    const again = await replay(rec.run, async () => trajectory(await run(replaying.agent, QUESTION)))
    expect(again).toEqual(rec.output)
    expect(server.calls()).toHaveLength(0)
    expect(replaying.toolRuns()).toBe(0)
  })

  it('a Runner with an OpenAIProvider on Chat Completions, streamed: recorded, then replayed with zero requests', async () => {
    const runner = new Runner({
      modelProvider: new OpenAIProvider({ openAIClient: openaiClient(), useResponses: false }),
    })
    const streamed = async (agent: Agent) => {
      const result = await runner.run(agent, QUESTION, { stream: true })
      await result.completed
      return trajectory(result)
    }
    server.script({ ...LOOKUP, chunkSize: 4 }, { text: FINAL_TEXT, chunkSize: 5 })
    const recording = refundAgent()
    const rec = await record('agents-chat-stream', () => streamed(recording.agent))
    expect(rec.output).toEqual({
      answer: FINAL_TEXT,
      calls: [{ name: 'get_order', args: { order_id: 'A17' } }],
    })
    expect(server.calls().map((c) => c.api)).toEqual(['openai-chat', 'openai-chat'])
    expectRecordedRun(rec.run, 'openai-chat')
    expect((rec.run.steps[2] as LlmStep).response?.wire.chunks?.length).toBeGreaterThan(2)

    server.script()
    const replaying = refundAgent()
    expect(await replay(rec.run, () => streamed(replaying.agent))).toEqual(rec.output)
    expect(server.calls()).toHaveLength(0)
    expect(replaying.toolRuns()).toBe(0)
  })

  it('a replay whose input changed diverges instead of reaching the provider', async () => {
    setOpenAIAPI('responses')
    setDefaultOpenAIClient(openaiClient())
    server.script(LOOKUP, { text: FINAL_TEXT })
    const rec = await record(
      'agents-divergence',
      async () => (await run(refundAgent().agent, QUESTION)).finalOutput,
    )
    server.script()
    await expect(replay(rec.run, () => run(refundAgent().agent, 'Where is my order B22?'))).rejects.toThrow(
      /diverged/,
    )
    expect(server.calls()).toHaveLength(0)
  })
})
