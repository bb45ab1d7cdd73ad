import { describe, expect, it } from 'vitest'
import { agentsPayloads } from '../../test/helpers/agents-payloads.ts'
import { RunSchema } from '../case/schema/run.ts'
import type { LlmStep, ToolStep } from '../case/schema/step.ts'
import { readAgentsTrace } from './read-agents-trace.ts'
import { tracesToRuns } from './traces-to-runs.ts'

describe('the OpenAI Agents SDK trace payload', () => {
  it("what the SDK's own exporter posts becomes a run: model calls with their messages, the tool with its input and output", async () => {
    const payloads = await agentsPayloads('Where is my order A17?')
    delete process.env.ORDER_BOT_BASE_URL
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
