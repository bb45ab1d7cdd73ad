import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { RunSchema } from '../case/schema/run.ts'
import type { LlmStep, ToolStep } from '../case/schema/step.ts'
import { readOtlp } from './read-otlp.ts'
import { type ImportedTrace, tracesToRuns } from './traces-to-runs.ts'

function importFixture(name: string): ImportedTrace[] {
  const imported = tracesToRuns(
    readOtlp(readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8'), name),
  )
  // Every run an import makes is one the store and the cassette loader accept.
  for (const { run } of imported) expect(RunSchema.safeParse(run).error).toBeUndefined()
  return imported
}
const llm = (t: ImportedTrace, i: number) => t.run.steps[i] as LlmStep
const tool = (t: ImportedTrace, i: number) => t.run.steps[i] as ToolStep

describe('tracesToRuns: the GenAI semantic conventions', () => {
  it('makes one run of an agent trace (invoke_agent → chat → execute_tool → chat) and leaves other traces out', () => {
    const imported = importFixture('genai-agent.json')
    expect(imported).toHaveLength(1)
    const [t] = imported as [ImportedTrace]
    expect(t.traceId).toBe('5b8efff798038103d269b633813fc60c')
    expect(t.run.name).toBe('weather-agent')
    expect(t.run.steps.map((s) => s.type)).toEqual(['llm', 'tool', 'llm'])
    expect(t.run).toMatchObject({
      status: 'ok',
      completeness: 'complete',
      input: 'What is the weather in Paris?',
      output: 'It is 18 °C and sunny in Paris.',
      startedAt: '2025-12-03T08:00:00.000Z',
      endedAt: '2025-12-03T08:00:02.400Z',
      usage: { inputTokens: 160, outputTokens: 28, llmCalls: 2, toolCalls: 1 },
    })
    expect(t.incompleteSteps).toEqual([])
    expect(t.conventions).toEqual(['gen_ai'])
    expect(t.keys).toContain('gen_ai.input.messages')
    expect(t.keys.filter((k) => k.endsWith('(previous)'))).toEqual([])
  })

  it('maps an inference span to a normalized request and response', () => {
    const [t] = importFixture('genai-agent.json') as [ImportedTrace]
    const first = llm(t, 0)
    expect(first.provider).toBe('openai')
    expect(first.endpoint).toBe('chat')
    expect(first.request.wire.url).toBe('https://api.openai.com:443')
    expect(first.request.normalized).toEqual({
      model: 'gpt-4o',
      system: [{ type: 'text', text: 'You are a weather assistant. Answer in one sentence.' }],
      messages: [{ role: 'user', parts: [{ type: 'text', text: 'What is the weather in Paris?' }] }],
      tools: [
        {
          name: 'get_weather',
          description: 'Current weather for a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      ],
      params: { temperature: 0.2, maxTokens: 256 },
    })
    expect(first.response).toMatchObject({
      incomplete: false,
      normalized: {
        model: 'gpt-4o-2024-08-06',
        requestId: 'chatcmpl-Cj2k5Wq1',
        parts: [],
        toolCalls: [
          {
            type: 'tool_call',
            id: 'call_VSPygqKTWdrhaFErNvMV18Yl',
            name: 'get_weather',
            args: { city: 'Paris' },
          },
        ],
        finishReason: 'tool_calls',
        usage: { inputTokens: 62, outputTokens: 17 },
      },
    })
    expect(first.timing).toEqual({ startedAt: '2025-12-03T08:00:00.010Z', durationMs: 890.000333 })
    expect(llm(t, 2).request.normalized!.messages.map((m) => m.parts[0]!.type)).toEqual([
      'text',
      'tool_call',
      'tool_result',
    ])
    expect(llm(t, 2).request.normalized!.messages[2]!.parts[0]).toEqual({
      type: 'tool_result',
      id: 'call_VSPygqKTWdrhaFErNvMV18Yl',
      content: '{"temperature_c":18,"sky":"sunny"}',
      isError: false,
    })
  })

  it('maps an execute_tool span to a tool step, with side effects assumed', () => {
    const [t] = importFixture('genai-agent.json') as [ImportedTrace]
    expect(tool(t, 1)).toMatchObject({
      name: 'get_weather',
      callId: 'call_VSPygqKTWdrhaFErNvMV18Yl',
      args: { city: 'Paris' },
      result: { temperature_c: 18, sky: 'sunny' },
      sideEffects: true,
      error: null,
    })
  })

  it('counts a span written twice (a retried export) once', () => {
    const text = readFileSync(join(import.meta.dirname, 'fixtures', 'genai-agent.jsonl'), 'utf8')
    const [once] = tracesToRuns(readOtlp(text))
    const [twice] = tracesToRuns(readOtlp(`${text}${text.split('\n')[0]}\n`))
    expect(twice!.run.steps).toEqual(once!.run.steps)
    expect(twice!.run.steps).toHaveLength(3)
  })

  it('reads JSON Lines into the same run as the document', () => {
    const strip = (t: ImportedTrace) => ({ ...t.run, id: '' })
    const [lines] = importFixture('genai-agent.jsonl') as [ImportedTrace]
    const [doc] = importFixture('genai-agent.json') as [ImportedTrace]
    expect(strip(lines)).toEqual(strip(doc))
  })

  it('reads the previous names (gen_ai.system, prompt/completion tokens, message events, gen_ai.prompt/completion) and says so', () => {
    const [t] = importFixture('genai-previous.json') as [ImportedTrace]
    expect(t.run.name).toBe('book_meeting')
    expect(t.run.steps.map((s) => s.type)).toEqual(['llm', 'tool', 'llm'])
    expect(t.keys.filter((k) => k.endsWith('(previous)'))).toEqual([
      'event gen_ai.choice (previous)',
      'event gen_ai.system.message (previous)',
      'event gen_ai.user.message (previous)',
      'gen_ai.completion (previous)',
      'gen_ai.prompt (previous)',
      'gen_ai.system (previous)',
      'gen_ai.usage.completion_tokens (previous)',
      'gen_ai.usage.prompt_tokens (previous)',
    ])
    const fromEvents = llm(t, 0)
    expect(fromEvents.provider).toBe('openai')
    expect(fromEvents.request.normalized).toMatchObject({
      system: [{ type: 'text', text: 'You book meeting rooms.' }],
      messages: [{ role: 'user', parts: [{ type: 'text', text: 'Book room 4 for 3pm.' }] }],
    })
    expect(fromEvents.response!.normalized).toMatchObject({
      toolCalls: [{ id: 'call_k2', name: 'book_room', args: { room: 4, time: '15:00' } }],
      finishReason: 'tool_calls',
      usage: { inputTokens: 48, outputTokens: 15 },
    })
    const fromAttributes = llm(t, 2)
    expect(fromAttributes.request.normalized!.messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
    ])
    expect(fromAttributes.request.normalized!.messages[2]!.parts[0]).toMatchObject({
      type: 'tool_result',
      id: 'call_k2',
    })
    expect(fromAttributes.response!.normalized).toMatchObject({
      parts: [{ type: 'text', text: 'Room 4 is booked for 3pm.' }],
      finishReason: 'stop',
      usage: { inputTokens: 81, outputTokens: 9 },
    })
  })

  it('reads an event whose content is JSON in gen_ai.event.content, and names the run after the outermost agent', () => {
    const attr = (key: string, value: string) => ({ key, value: { stringValue: value } })
    const span = (
      spanId: string,
      name: string,
      start: string,
      attributes: unknown[],
      events: unknown[] = [],
    ) => ({
      traceId: '11112222333344445555666677778888',
      spanId,
      name,
      startTimeUnixNano: start,
      endTimeUnixNano: `${start}9`,
      attributes,
      events,
    })
    const content = (name: string, body: object) => ({
      name,
      timeUnixNano: '2',
      attributes: [attr('gen_ai.event.content', JSON.stringify(body))],
    })
    const spans = [
      span('00000000000000b2', 'invoke_agent helper', '200', [
        attr('gen_ai.operation.name', 'invoke_agent'),
        attr('gen_ai.agent.name', 'helper'),
      ]),
      span('00000000000000b1', 'invoke_agent planner', '100', [
        attr('gen_ai.operation.name', 'invoke_agent'),
        attr('gen_ai.agent.name', 'planner'),
      ]),
      span(
        '00000000000000c1',
        'chat m',
        '300',
        [attr('gen_ai.operation.name', 'chat'), attr('gen_ai.request.model', 'm')],
        [
          content('gen_ai.user.message', { content: 'Plan my day' }),
          content('gen_ai.choice', { index: 0, finish_reason: 'length', message: { content: 'First,' } }),
        ],
      ),
    ]
    const [t] = tracesToRuns(readOtlp(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] })))
    expect(RunSchema.safeParse(t!.run).success).toBe(true)
    expect(t!.run.name).toBe('planner')
    expect(llm(t!, 0).request.normalized!.messages).toEqual([
      { role: 'user', parts: [{ type: 'text', text: 'Plan my day' }] },
    ])
    expect(llm(t!, 0).response!.normalized).toMatchObject({
      parts: [{ type: 'text', text: 'First,' }],
      finishReason: 'length',
    })
  })

  it('marks the steps whose content was not captured, and the run partial', () => {
    const [t] = importFixture('genai-no-content.json') as [ImportedTrace]
    expect(t.incompleteSteps).toEqual([0, 1, 2])
    expect(t.run.completeness).toBe('partial')
    expect(t.run.metadata).toMatchObject({ otelImport: { incompleteSteps: [0, 1, 2] } })
    // What the span did hold is kept: the model, the usage, the finish reason, the span in the wire body.
    expect(llm(t, 0).request.normalized).toBeNull()
    expect(llm(t, 0).request.wire.body).toMatchObject({ attributes: { 'gen_ai.request.model': 'gpt-4o' } })
    expect(llm(t, 0).response).toMatchObject({
      incomplete: true,
      normalized: { parts: [], toolCalls: [], finishReason: 'tool_calls', usage: { inputTokens: 62 } },
    })
    expect(tool(t, 1)).toMatchObject({ name: 'get_weather', args: null })
    expect(tool(t, 1).result).toBeUndefined()
    expect(t.run.usage.inputTokens).toBe(160)
  })

  it('keeps a failed span as the step error and a failed root as the run error', () => {
    const text = readFileSync(join(import.meta.dirname, 'fixtures', 'genai-agent.json'), 'utf8')
    const doc = JSON.parse(text)
    const spans = doc.resourceSpans[0].scopeSpans[0].spans
    spans[0].status = { code: 2, message: 'agent gave up' }
    spans[2].status = { code: 2, message: 'weather API timed out' }
    spans[2].attributes.push({ key: 'error.type', value: { stringValue: 'TimeoutError' } })
    const [t] = tracesToRuns(readOtlp(JSON.stringify(doc)))
    expect(RunSchema.safeParse(t!.run).success).toBe(true)
    expect(t!.run.status).toBe('error')
    expect(t!.run.error).toEqual({ name: 'Error', message: 'agent gave up' })
    expect(t!.run.steps[1]).toMatchObject({
      error: { name: 'TimeoutError', message: 'weather API timed out' },
    })
    expect((t!.run.steps[1] as ToolStep).result).toBeUndefined()
  })
})

describe('tracesToRuns: the AI SDK', () => {
  it('maps doGenerate and ai.toolCall spans, named by the function id', () => {
    const [t] = importFixture('ai-sdk.json') as [ImportedTrace]
    expect(t.run.name).toBe('support-bot')
    expect(t.conventions).toEqual(['ai-sdk'])
    expect(t.run.steps.map((s) => s.type)).toEqual(['llm', 'tool', 'llm'])
    expect(llm(t, 0).provider).toBe('openai')
    expect(llm(t, 0).request.normalized).toMatchObject({
      model: 'gpt-4o-mini',
      system: [{ type: 'text', text: 'You are a support agent for Acme.' }],
      messages: [{ role: 'user', parts: [{ type: 'text', text: 'Where is my order A17?' }] }],
      tools: [{ name: 'get_order', description: 'Look up an order' }],
      params: { temperature: 0, toolChoice: { type: 'auto' } },
    })
    expect(llm(t, 0).response!.normalized).toMatchObject({
      toolCalls: [{ id: 'call_3fQ1', name: 'get_order', args: { id: 'A17' } }],
      finishReason: 'tool_calls',
      usage: { inputTokens: 57, outputTokens: 14 },
    })
    expect(tool(t, 1)).toMatchObject({
      name: 'get_order',
      callId: 'call_3fQ1',
      args: { id: 'A17' },
      result: { status: 'shipped' },
    })
    const second = llm(t, 2)
    expect(second.request.normalized!.messages[2]!.parts[0]).toEqual({
      type: 'tool_result',
      id: 'call_3fQ1',
      name: 'get_order',
      content: '{"status":"shipped","eta":"2025-12-05"}',
      isError: false,
    })
    expect(second.response!.normalized).toMatchObject({
      finishReason: 'stop',
      usage: { inputTokens: 96, outputTokens: 15 },
    })
    // AI SDK 4's token names are the previous ones; 5's the current.
    expect(t.keys).toEqual(
      expect.arrayContaining(['ai.usage.promptTokens (previous)', 'ai.usage.inputTokens']),
    )
    expect(t.run.output).toBe('Your order A17 has shipped and should arrive on 5 December.')
  })
})

describe('tracesToRuns: OpenInference', () => {
  it('unflattens llm.input_messages and llm.output_messages, and maps TOOL spans', () => {
    const [t] = importFixture('openinference.json') as [ImportedTrace]
    expect(t.run.name).toBe('docs-helper')
    expect(t.conventions).toEqual(['openinference'])
    expect(t.run.steps.map((s) => s.type)).toEqual(['llm', 'tool', 'llm'])
    expect(llm(t, 0).provider).toBe('anthropic')
    expect(llm(t, 0).request.normalized).toMatchObject({
      model: 'claude-3-5-haiku-20241022',
      system: [{ type: 'text', text: 'You answer questions about the docs.' }],
      messages: [{ role: 'user', parts: [{ type: 'text', text: 'How do I reset my password?' }] }],
      tools: [{ name: 'search_docs', description: 'Search the product docs' }],
      params: { temperature: 0, maxTokens: 512 },
    })
    expect(llm(t, 0).response!.normalized).toMatchObject({
      toolCalls: [{ id: 'call_doc1', name: 'search_docs', args: { query: 'reset password' } }],
      finishReason: 'tool_calls',
      usage: { inputTokens: 211, outputTokens: 23 },
    })
    expect(tool(t, 1)).toMatchObject({
      name: 'search_docs',
      args: { query: 'reset password' },
      result: 'Settings → Security → Reset password',
    })
    expect(llm(t, 2).request.normalized!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool'])
    expect(llm(t, 2).response!.normalized!.parts).toEqual([
      { type: 'text', text: 'Open Settings → Security and choose Reset password.' },
    ])
    expect(t.keys).toEqual(
      expect.arrayContaining(['llm.input_messages.*', 'llm.output_messages.*', 'llm.token_count.prompt']),
    )
  })
})

describe('tracesToRuns: a file of several agents', () => {
  it('makes one run per agent trace, each with its own conventions', () => {
    const read = (name: string) => readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8')
    const lines = [read('genai-agent.jsonl'), JSON.stringify(JSON.parse(read('ai-sdk.json'))), ''].join('\n')
    const imported = tracesToRuns(readOtlp(lines, 'mixed.jsonl'))
    expect(imported.map((t) => [t.run.name, t.conventions, t.run.steps.length])).toEqual([
      ['weather-agent', ['gen_ai'], 3],
      ['support-bot', ['ai-sdk'], 3],
    ])
    expect(new Set(imported.map((t) => t.run.id)).size).toBe(2)
  })
})

describe('tracesToRuns: traces without GenAI activity', () => {
  it('makes no run of a trace of HTTP spans', () => {
    const spans = readOtlp(
      readFileSync(join(import.meta.dirname, 'fixtures', 'genai-agent.json'), 'utf8'),
    ).filter((s) => s.traceId !== '5b8efff798038103d269b633813fc60c')
    expect(spans).toHaveLength(1)
    expect(tracesToRuns(spans)).toEqual([])
  })
})
