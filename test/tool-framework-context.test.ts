import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createOpenAI } from '@ai-sdk/openai'
import { type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages'
import { DynamicStructuredTool, tool as lcTool } from '@langchain/core/tools'
import { ChatOpenAI } from '@langchain/openai'
import { Agent as MastraAgent } from '@mastra/core/agent'
import { createTool } from '@mastra/core/tools'
import { Agent, tool as agentTool, OpenAIProvider, Runner, setTracingDisabled } from '@openai/agents'
import { tool as aiTool, generateText, jsonSchema, stepCountIs } from 'ai'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { Run, ToolStep } from '../src/case/index.ts'
import { detectFindings } from '../src/checks/detectors/detect-findings.ts'
import { viewRun } from '../src/checks/run-view.ts'
import { tool } from '../src/engine/index.ts'
import { type Interceptor, startInterceptor } from '../src/interceptor/index.ts'
import { recordToCassette, replayFromCassette } from './helpers/cassette-round-trip.ts'
import { FINAL_TEXT, GET_ORDER, ORDER, ORDER_PARAMS, QUESTION, SYSTEM } from './helpers/refund.ts'
import { useScriptedProvider } from './helpers/scripted-harness.ts'

/**
 * `tool()` passed straight to an agent framework as the tool's function: the framework calls it with
 * its own context after the model's arguments (the AI SDK's `{ toolCallId, messages, ... }`, LangChain's
 * `RunnableConfig`, the Agents SDK's `RunContext` and details, Mastra's tool context). The recording
 * keeps the model's arguments only, links the step to the model's tool call, lists each call once, raises
 * no `bad_tool_args`, and replays offline without running the tool.
 */

setTracingDisabled(true)
process.env.MASTRA_TELEMETRY_DISABLED = '1'

const server = useScriptedProvider()
let interceptor: Interceptor
let dir: string
beforeAll(() => {
  interceptor = startInterceptor({ hosts: [server.url] })
  dir = mkdtempSync(join(tmpdir(), 'crashlab-tool-context-'))
})
afterAll(async () => {
  await interceptor.close()
  rmSync(dir, { recursive: true, force: true })
})

const CALL_ID = 'call_A17'
const ARGS = { order_id: 'A17' }
const LOOKUP = { toolCalls: [{ name: 'get_order', args: ARGS, id: CALL_ID }] }
const ORDER_SCHEMA = z.object({ order_id: z.string().describe('The order id, e.g. A17') })

/** The crashlab-wrapped tool body every framework gets as its tool function; counts its real runs. */
function orderTool(result: (args: { order_id: string }) => unknown = (args) => ({ ...ORDER, ...args })) {
  const seen: unknown[][] = []
  const getOrder = tool(
    async (args: { order_id: string }, ...rest: unknown[]) => {
      seen.push([args, ...rest])
      return result(args)
    },
    { name: 'get_order', sideEffects: false },
  )
  return { getOrder, runs: () => seen.length, seen }
}

type AgentRun = () => Promise<unknown>
type Framework = [name: string, build: (getOrder: ReturnType<typeof orderTool>['getOrder']) => AgentRun]

const baseURL = () => `${server.url}/v1`
const KEY = 'sk-test-not-a-secret'

const FRAMEWORKS: Framework[] = [
  [
    'the Vercel AI SDK (execute: tool())',
    (getOrder) => async () => {
      const result = await generateText({
        model: createOpenAI({ apiKey: KEY, baseURL: baseURL() }).chat('gpt-4o-mini'),
        system: SYSTEM,
        prompt: QUESTION,
        tools: {
          get_order: aiTool({
            description: GET_ORDER.description,
            inputSchema: jsonSchema<{ order_id: string }>(ORDER_PARAMS),
            execute: getOrder,
          }),
        },
        stopWhen: stepCountIs(3),
        maxRetries: 0,
      })
      return result.text
    },
  ],
  [
    'the OpenAI Agents SDK (execute: tool())',
    (getOrder) => async () => {
      const client = new OpenAI({ apiKey: KEY, baseURL: baseURL(), maxRetries: 0 })
      const runner = new Runner({
        modelProvider: new OpenAIProvider({ openAIClient: client, useResponses: false }),
      })
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
            execute: getOrder as never,
          }),
        ],
      })
      return (await runner.run(agent, QUESTION)).finalOutput
    },
  ],
  [
    'LangChain.js (tool(getOrder, { schema }), invoked with the ToolCall)',
    (getOrder) => async () => {
      const lookup = lcTool(getOrder, {
        name: GET_ORDER.name,
        description: GET_ORDER.description ?? '',
        schema: ORDER_SCHEMA,
      })
      return langchainLoop(lookup)
    },
  ],
  [
    'LangChain.js (new DynamicStructuredTool({ func: tool() }))',
    (getOrder) => async () => {
      const lookup = new DynamicStructuredTool({
        name: GET_ORDER.name,
        description: GET_ORDER.description ?? '',
        schema: ORDER_SCHEMA,
        func: getOrder as never,
      })
      return langchainLoop(lookup)
    },
  ],
  [
    'Mastra (createTool({ execute: tool() }))',
    (getOrder) => async () => {
      const agent = new MastraAgent({
        id: 'refund-bot',
        name: 'refund-bot',
        instructions: SYSTEM,
        model: { id: 'openai/gpt-4o-mini', url: baseURL(), apiKey: KEY },
        tools: {
          get_order: createTool({
            id: 'get_order',
            description: GET_ORDER.description ?? '',
            inputSchema: ORDER_SCHEMA,
            execute: getOrder,
          }),
        },
      })
      return (await agent.generate(QUESTION, { maxSteps: 3 })).text
    },
  ],
]

/** A LangChain tool loop: bindTools, invoke, run each ToolCall through the tool, invoke again. */
async function langchainLoop(lookup: Parameters<ChatOpenAI['bindTools']>[0][number]): Promise<unknown> {
  const model = new ChatOpenAI({
    model: 'gpt-4o-mini',
    apiKey: KEY,
    configuration: { baseURL: baseURL() },
    maxRetries: 0,
  }).bindTools([lookup])
  const messages: BaseMessage[] = [new SystemMessage(SYSTEM), new HumanMessage(QUESTION)]
  for (let turn = 0; turn < 3; turn++) {
    const reply = await model.invoke(messages)
    messages.push(reply)
    if (!reply.tool_calls?.length) return reply.text
    for (const call of reply.tool_calls)
      messages.push(await (lookup as { invoke(c: unknown): Promise<BaseMessage> }).invoke(call))
  }
  throw new Error('the agent did not finish in 3 turns')
}

function toolSteps(run: Run): ToolStep[] {
  return run.steps.filter((s): s is ToolStep => s.type === 'tool')
}

describe.each(FRAMEWORKS)('tool() as the tool function of %s', (name, build) => {
  it('records the model arguments only, linked to the tool call; one call, no finding; replays offline', async () => {
    server.script(LOOKUP, { text: FINAL_TEXT })
    const recording = orderTool()
    const slug = name.replace(/\W+/g, '-')
    const rec = await record(slug, build(recording.getOrder))
    expect(rec.output).toBe(FINAL_TEXT)
    expect(recording.runs()).toBe(1)
    // The framework did pass a context: the tool function still gets it.
    expect(recording.seen[0]!.length).toBeGreaterThan(1)

    const [step, ...more] = toolSteps(rec.run)
    expect(more).toEqual([])
    expect(step).toMatchObject({ name: 'get_order', args: ARGS, callId: CALL_ID, error: null })
    const calls = viewRun(rec.run).toolCalls('get_order')
    expect(calls).toHaveLength(1)
    expect(calls[0]).toMatchObject({ args: ARGS, source: 'tool', callId: CALL_ID, isError: false })
    const findings = detectFindings(rec.run)
    expect(findings.filter((f) => f.kind === 'bad_tool_args')).toEqual([])
    expect(findings.filter((f) => f.severity === 'error' || f.severity === 'critical')).toEqual([])
    // No framework internals (the message history, callbacks) in the cassette's tool step.
    const cassette = readFileSync(join(dir, `${slug}.cassette.json`), 'utf8')
    const stored = (JSON.parse(cassette) as { run: Run }).run.steps.find((s) => s.type === 'tool')
    expect(JSON.stringify(stored)).not.toMatch(/messages|callbacks|toolCallId|usage|requestContext/)

    server.script()
    const replaying = orderTool()
    expect(await replay(rec.run, build(replaying.getOrder))).toBe(FINAL_TEXT)
    expect(server.calls()).toHaveLength(0)
    expect(replaying.runs()).toBe(0)
  })
})

const record = (name: string, agent: AgentRun) => recordToCassette(dir, name, agent)
const replay = (recorded: Run, agent: AgentRun) => replayFromCassette(recorded, agent, 'tool context replay')
