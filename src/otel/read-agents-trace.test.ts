import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  Agent,
  BatchTraceProcessor,
  getGlobalTraceProvider,
  OpenAIChatCompletionsModel,
  OpenAITracingExporter,
  run,
  setTraceProcessors,
  setTracingDisabled,
  tool,
} from '@openai/agents'
import OpenAI from 'openai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { RunSchema } from '../case/schema/run.ts'
import type { LlmStep, ToolStep } from '../case/schema/step.ts'
import { startScriptedProvider } from '../testing/index.ts'
import { readAgentsTrace } from './read-agents-trace.ts'
import { tracesToRuns } from './traces-to-runs.ts'

/** Runs an Agents SDK agent on Chat Completions (the scripted provider) with its own trace exporter, pointed at loopback: the payloads it posts. */
async function agentsPayloads(): Promise<unknown[]> {
  const bodies: unknown[] = []
  const ingest = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => (body += chunk))
    req.on('end', () => {
      bodies.push(JSON.parse(body))
      res.writeHead(200).end('{}')
    })
  })
  await new Promise<void>((done) => ingest.listen(0, '127.0.0.1', done))
  const { port } = ingest.address() as AddressInfo
  setTracingDisabled(false)
  const exporter = new OpenAITracingExporter({
    endpoint: `http://127.0.0.1:${port}/v1/traces/ingest`,
    apiKey: 'k',
  })
  setTraceProcessors([new BatchTraceProcessor(exporter, { scheduleDelay: 600_000 })])
  const provider = await startScriptedProvider({
    policy: (request) =>
      request.messages.at(-1)?.role === 'tool'
        ? { text: 'A17 shipped on Monday.' }
        : { toolCalls: [{ name: 'get_order', args: { order_id: 'A17' } }] },
  })
  try {
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${provider.url}/v1` })
    const agent = new Agent({
      name: 'order-bot',
      instructions: 'Answer about orders.',
      model: new OpenAIChatCompletionsModel(client, 'gpt-4o-mini'),
      tools: [
        tool({
          name: 'get_order',
          description: 'Look an order up',
          parameters: z.object({ order_id: z.string() }),
          execute: async ({ order_id }) => ({ order_id, status: 'shipped' }),
        }),
      ],
    })
    await run(agent, 'Where is my order A17?')
    await getGlobalTraceProvider().forceFlush()
    return bodies
  } finally {
    setTracingDisabled(true)
    await provider.close()
    ingest.close()
  }
}

describe('the OpenAI Agents SDK trace payload', () => {
  it("what the SDK's own exporter posts becomes a run: model calls with their messages, the tool with its input and output", async () => {
    const payloads = await agentsPayloads()
    expect(payloads.length).toBeGreaterThan(0)
    const traces = tracesToRuns(readAgentsTrace(JSON.stringify(payloads), 'ingest'))
    expect(traces).toHaveLength(1)
    const [{ run, conventions, incompleteSteps }] = traces as [(typeof traces)[number]]
    expect(RunSchema.parse(run)).toBeTruthy()
    expect(conventions).toEqual(['openai-agents'])
    expect(incompleteSteps).toEqual([])
    expect(run.name).toBe('order-bot')
    expect(run.steps.map((s) => s.type)).toEqual(['llm', 'tool', 'llm'])
    const [first, lookup, last] = run.steps as [LlmStep, ToolStep, LlmStep]
    expect(first.request.normalized?.messages[0]).toMatchObject({
      role: 'user',
      parts: [{ type: 'text', text: 'Where is my order A17?' }],
    })
    expect(first.response?.normalized?.toolCalls).toMatchObject([
      { name: 'get_order', args: { order_id: 'A17' } },
    ])
    expect(lookup).toMatchObject({
      name: 'get_order',
      args: { order_id: 'A17' },
      result: { status: 'shipped' },
    })
    expect(last.response?.normalized?.parts).toEqual([{ type: 'text', text: 'A17 shipped on Monday.' }])
    expect(run.usage.llmCalls).toBe(2)
  })

  it('a payload that is not one: a clear error naming the file', () => {
    expect(() => readAgentsTrace('{"resourceSpans":[]}', 'traces.json')).toThrow(
      /traces.json is not an OpenAI Agents SDK trace payload: payload 0 has no "data" list/,
    )
  })
})
