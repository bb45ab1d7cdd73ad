import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Usage } from '../case/schema/normalized.ts'
import { RunSchema } from '../case/schema/run.ts'
import type { LlmStep, ToolStep } from '../case/schema/step.ts'
import { type ScriptedProvider, startScriptedProvider } from '../testing/index.ts'
import { readOtlp } from './read-otlp.ts'
import {
  type AiSdkAgentOptions,
  ORDER_POLICY,
  ORDER_RESULT,
  otlpJson,
  runAiSdkAgent,
  runOpenInferenceAgent,
} from './test-real-telemetry.ts'
import { type ImportedTrace, tracesToRuns } from './traces-to-runs.ts'

// The readers against what the real instrumentations write, not hand-made fixtures: each agent runs
// over the scripted provider, its spans go through the OTel SDK's in-memory exporter and the OTLP JSON
// serializer (what an OTLP/HTTP JSON exporter sends), then through readOtlp and tracesToRuns.

let provider: ScriptedProvider

beforeAll(async () => {
  provider = await startScriptedProvider({ policy: ORDER_POLICY })
})
afterAll(() => provider.close())

/** Runs `agent` with a tracer provider of its own; the one trace it made, read back as a run. */
async function traced(
  agent: (tp: TracerProvider) => Promise<unknown>,
): Promise<{ trace: ImportedTrace; usage: Usage[] }> {
  const exporter = new InMemorySpanExporter()
  const tp = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] })
  const before = provider.requests.length
  await agent(tp)
  await tp.forceFlush()
  const traces = tracesToRuns(readOtlp(otlpJson(exporter.getFinishedSpans()), 'exporter'))
  expect(traces).toHaveLength(1)
  const usage = provider.requests.slice(before).map((r) => {
    if (r.answer?.kind !== 'reply') throw new Error(`the provider did not answer request ${r.index}`)
    return r.answer.response.usage as Usage
  })
  return { trace: traces[0]!, usage }
}

const aiSdk = (options: AiSdkAgentOptions) => (tp: TracerProvider) =>
  runAiSdkAgent(provider, tp.getTracer('ai'), options)

/** The steps every integration must give for the order agent: model call, tool, model call. */
function expectOrderRun(trace: ImportedTrace, usage: Usage[]): void {
  const { run } = trace
  expect(RunSchema.parse(run)).toBeTruthy()
  expect(trace.incompleteSteps).toEqual([])
  expect(run.name).toBe('order-bot')
  expect(run.steps.map((s) => s.type)).toEqual(['llm', 'tool', 'llm'])
  const [first, lookup, last] = run.steps as [LlmStep, ToolStep, LlmStep]
  expect(first.request.normalized).toMatchObject({
    model: 'gpt-4o-mini',
    system: [{ type: 'text', text: 'Answer about orders.' }],
    messages: [{ role: 'user', parts: [{ type: 'text', text: 'Where is my order A17?' }] }],
    tools: [{ name: 'get_order', description: 'Look an order up' }],
  })
  expect(first.response?.normalized).toMatchObject({
    toolCalls: [{ name: 'get_order', args: { order_id: 'A17' } }],
    finishReason: 'tool_calls',
  })
  const callId = first.response?.normalized?.toolCalls[0]?.id
  expect(lookup).toMatchObject({ name: 'get_order', args: { order_id: 'A17' }, result: ORDER_RESULT })
  expect(last.request.normalized?.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool'])
  expect(last.request.normalized?.messages[2]?.parts[0]).toMatchObject({ type: 'tool_result', id: callId })
  expect(last.response?.normalized).toMatchObject({
    parts: [{ type: 'text', text: 'A17 shipped on Monday.' }],
    finishReason: 'stop',
  })
  // What the provider said it counted, as the spans carried it.
  expect([first, last].map((s) => s.response?.normalized?.usage)).toMatchObject(
    usage.map((u) => ({ inputTokens: u.inputTokens, outputTokens: u.outputTokens })),
  )
  expect(run.usage).toMatchObject({
    inputTokens: usage[0]!.inputTokens + usage[1]!.inputTokens,
    outputTokens: usage[0]!.outputTokens + usage[1]!.outputTokens,
    llmCalls: 2,
    toolCalls: 1,
  })
  expect(run.input).toBe('Where is my order A17?')
  expect(run.output).toBe('A17 shipped on Monday.')
}

describe('the AI SDK 7 telemetry integration (@ai-sdk/otel OpenTelemetry: gen_ai.* keys)', () => {
  it('a generateText agent with one tool: one run named by its functionId, with the model calls, the tool and the usage', async () => {
    const { trace, usage } = await traced(aiSdk({ integration: 'current' }))
    expectOrderRun(trace, usage)
    expect(trace.conventions).toEqual(['gen_ai'])
    const [first, lookup] = trace.run.steps as [LlmStep, ToolStep]
    expect(first.response?.normalized).toMatchObject({
      model: 'gpt-4o-mini',
      requestId: expect.stringMatching(/^chatcmpl-/),
    })
    expect(lookup.callId).toBe(first.response?.normalized?.toolCalls[0]?.id)
    // The root span is `invoke_agent gpt-4o-mini`: the run's name is its gen_ai.agent.name, not the span's.
    expect(trace.keys).toContain('gen_ai.agent.name')
  })

  it('streamText gives the same run', async () => {
    const { trace, usage } = await traced(aiSdk({ integration: 'current', stream: true }))
    expectOrderRun(trace, usage)
  })

  it('with recordInputs and recordOutputs off: the same steps, listed incomplete, with their usage', async () => {
    const { trace, usage } = await traced(aiSdk({ integration: 'current', recordContent: false }))
    expect(trace.run.name).toBe('order-bot')
    expect(trace.run.steps.map((s) => s.type)).toEqual(['llm', 'tool', 'llm'])
    expect(trace.incompleteSteps).toEqual([0, 1, 2])
    expect(trace.run.completeness).toBe('partial')
    const [first, lookup] = trace.run.steps as [LlmStep, ToolStep]
    expect(first.request.normalized).toBeNull()
    expect(first.response).toMatchObject({ incomplete: true, normalized: { finishReason: 'tool_calls' } })
    expect(lookup.args).toBeNull()
    expect(trace.run.usage.inputTokens).toBe(usage[0]!.inputTokens + usage[1]!.inputTokens)
  })
})

describe('the AI SDK legacy telemetry (@ai-sdk/otel LegacyOpenTelemetry: ai.* keys)', () => {
  it('the same agent under experimental_telemetry: the same run', async () => {
    const { trace, usage } = await traced(aiSdk({ integration: 'legacy' }))
    expectOrderRun(trace, usage)
    expect(trace.conventions).toEqual(['ai-sdk'])
  })

  it('streamText: the same run', async () => {
    const { trace, usage } = await traced(aiSdk({ integration: 'legacy', stream: true }))
    expectOrderRun(trace, usage)
  })
})

describe("OpenInference's OpenAI instrumentation", () => {
  it('two chat.completions calls and a tool under one agent: llm, tool, llm, with the finish reasons, ids and model of the answers', async () => {
    const { trace, usage } = await traced((tp) => runOpenInferenceAgent(provider, tp))
    expectOrderRun(trace, usage)
    expect(trace.conventions).toEqual(['openinference'])
    const [first, , last] = trace.run.steps as [LlmStep, ToolStep, LlmStep]
    expect(first.response?.normalized).toMatchObject({ model: 'gpt-4o-mini', finishReason: 'tool_calls' })
    expect(first.response?.normalized?.requestId).toMatch(/^chatcmpl-/)
    expect(last.response?.normalized?.requestId).not.toBe(first.response?.normalized?.requestId)
    expect(trace.keys).toContain('llm.finish_reason')
  })

  it('with hideInputs and hideOutputs: the steps are listed incomplete, its placeholder is not taken for content', async () => {
    const { trace, usage } = await traced((tp) => runOpenInferenceAgent(provider, tp, { hidden: true }))
    expect(trace.run.steps.map((s) => s.type)).toEqual(['llm', 'tool', 'llm'])
    expect(trace.incompleteSteps).toEqual([0, 1, 2])
    const [first, lookup, last] = trace.run.steps as [LlmStep, ToolStep, LlmStep]
    expect(first.request.normalized).toBeNull()
    expect(first.response).toMatchObject({
      incomplete: true,
      normalized: { parts: [], finishReason: 'tool_calls' },
    })
    expect(last.response?.normalized?.finishReason).toBe('stop')
    expect(lookup.args).toBeNull()
    expect(JSON.stringify(trace.run.steps.map((s) => (s.type === 'tool' ? s : s.response)))).not.toContain(
      '__REDACTED__',
    )
    expect(trace.run.usage.outputTokens).toBe(usage[0]!.outputTokens + usage[1]!.outputTokens)
  })
})
