import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT_CONTEXT, type Span, type Tracer, trace } from '@opentelemetry/api'
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { LlmStep, ToolStep } from '../case/schema/step.ts'
import { readOtlp, tracesToRuns } from '../otel/index.ts'
import { ORDER_POLICY, ORDER_RESULT, runAiSdkAgent } from '../otel/test-real-telemetry.ts'
import { openStore } from '../store/open-store.ts'
import { type ScriptedProvider, startScriptedProvider } from '../testing/index.ts'
import { CrashlabSpanProcessor, type CrashlabSpanProcessorOptions, type ReadableSpanLike } from './index.ts'

// The processor in a real OTel SDK tracer provider, fed by the AI SDK's telemetry integration: what it
// writes to the store and to a file, and what it never writes.

const SECRET = 'sk-proj-Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6kM9nP2rS5uV8'
const PROMPT = `Where is my order A17? My key is ${SECRET}`

let provider: ScriptedProvider
let root: string

beforeAll(async () => {
  provider = await startScriptedProvider({ policy: ORDER_POLICY })
  root = mkdtempSync(join(tmpdir(), 'crashlab-otel-capture-'))
})
afterAll(async () => {
  await provider.close()
  rmSync(root, { recursive: true, force: true })
})

/** A tracer provider with the crashlab processor and an in-memory exporter beside it, as an app has it. */
function providerWith(options: CrashlabSpanProcessorOptions) {
  const processor = new CrashlabSpanProcessor({ config: false, ...options })
  const exporter = new InMemorySpanExporter()
  const tp = new TracerProvider({
    spanProcessors: [processor, new SimpleSpanProcessor({ exporter })],
  })
  return { tp, processor, exporter }
}

/** Every file under `dir`, read as bytes and decoded as latin1 (SQLite pages included). */
function bytesUnder(dir: string): string {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name)).toString('latin1'))
    .join('\n')
}

/** A model call span under the GenAI conventions, by hand. */
function chatSpan(tracer: Tracer, parent: Span): Span {
  return tracer.startSpan(
    'chat gpt-4o-mini',
    {
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4o-mini',
        'gen_ai.usage.input_tokens': 5,
        'gen_ai.usage.output_tokens': 2,
      },
    },
    trace.setSpan(ROOT_CONTEXT, parent),
  )
}

function agentSpan(tracer: Tracer, parent = ROOT_CONTEXT): Span {
  const attributes = { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'order-bot' }
  return tracer.startSpan('invoke_agent order-bot', { attributes }, parent)
}

const runsIn = (file: string) =>
  existsSync(file) ? tracesToRuns(readOtlp(readFileSync(file, 'utf8'), file)) : []

describe('CrashlabSpanProcessor', () => {
  it('stores each agent trace as a run, with its steps, tagged otel and captured, and the secret of the prompt redacted', async () => {
    const dir = join(root, 'store')
    const { tp, processor, exporter } = providerWith({ store: dir })
    await runAiSdkAgent(provider, tp.getTracer('ai'), { integration: 'current', prompt: PROMPT })
    await tp.forceFlush()
    // The spans did carry the secret: what reaches the store is the redactor's doing.
    expect(JSON.stringify(exporter.getFinishedSpans().map((s) => s.attributes))).toContain(SECRET)
    expect(processor.openTraces).toBe(0)

    const store = await openStore({ dir, config: false })
    try {
      const runs = store.list()
      expect(runs).toHaveLength(1)
      expect(runs[0]).toMatchObject({ name: 'order-bot', steps: 3, llmCalls: 2, toolCalls: 1 })
      expect(runs[0]!.tags).toEqual(expect.arrayContaining(['otel', 'captured']))
      const run = store.load(runs[0]!.id)
      expect(run.steps.map((s) => s.type)).toEqual(['llm', 'tool', 'llm'])
      const [first, lookup, last] = run.steps as [LlmStep, ToolStep, LlmStep]
      expect(first.request.normalized?.messages[0]?.parts[0]).toMatchObject({
        type: 'text',
        text: expect.stringContaining('[REDACTED:'),
      })
      expect(lookup).toMatchObject({ name: 'get_order', args: { order_id: 'A17' }, result: ORDER_RESULT })
      expect(last.response?.normalized?.parts).toEqual([{ type: 'text', text: 'A17 shipped on Monday.' }])
      expect(JSON.stringify(run)).not.toContain(SECRET)
      // Graded as an imported trace is: priced (a model server on loopback is a local one, free).
      expect(run.cost).toMatchObject({ catalog: 'local', usd: 0 })
    } finally {
      store.close()
    }
    const bytes = bytesUnder(dir)
    expect(bytes).toContain('order-bot')
    expect(bytes).not.toContain(SECRET)
    expect(bytes).not.toContain(SECRET.slice(8))
  })

  it('with file: appends the trace as a line of OTLP JSON, redacted, that readOtlp reads back into the same run', async () => {
    const file = join(root, 'traces', 'agent.jsonl')
    const { tp } = providerWith({ file })
    await runAiSdkAgent(provider, tp.getTracer('ai'), { integration: 'current', prompt: PROMPT })
    await runAiSdkAgent(provider, tp.getTracer('ai'), { integration: 'legacy' })
    await tp.forceFlush()
    const text = readFileSync(file, 'utf8')
    expect(text.trimEnd().split('\n')).toHaveLength(2)
    expect(text).not.toContain(SECRET)
    expect(text).toContain('[REDACTED:')
    const traces = tracesToRuns(readOtlp(text, file))
    expect(traces.map((t) => [t.run.name, t.conventions, t.run.steps.map((s) => s.type)])).toEqual([
      ['order-bot', ['gen_ai'], ['llm', 'tool', 'llm']],
      ['order-bot', ['ai-sdk'], ['llm', 'tool', 'llm']],
    ])
    expect(traces[0]!.run.input).toMatch(/^Where is my order A17\? My key is \[REDACTED:/)
    expect(traces[1]!.run.usage.llmCalls).toBe(2)
    // Nothing stored: with `file` alone, the store is not written.
    expect(existsSync(join(root, 'traces', 'index.db'))).toBe(false)
  })

  it("redacts with the config file's redaction rules, over the defaults", async () => {
    const config = join(root, 'crashlab.config.ts')
    writeFileSync(config, "export default { redaction: { keys: ['order_token'] } }\n")
    const file = join(root, 'config-rules.jsonl')
    const { tp } = providerWith({ file, config })
    const tracer = tp.getTracer('app')
    const agent = agentSpan(tracer)
    agent.setAttributes({ order_token: 'tok-4471-private', 'user.note': `my key is ${SECRET}` })
    chatSpan(tracer, agent).end()
    agent.end()
    await tp.forceFlush()
    const text = readFileSync(file, 'utf8')
    expect(text).toContain('order_token')
    expect(text).not.toContain('tok-4471-private')
    expect(text).not.toContain(SECRET)
  })

  it('writes nothing for a trace that is not an agent trace', async () => {
    const file = join(root, 'plain.jsonl')
    const dir = join(root, 'plain-store')
    const { tp, processor } = providerWith({ file, store: dir })
    const tracer = tp.getTracer('http')
    const request = tracer.startSpan('GET /health', { attributes: { 'http.request.method': 'GET' } })
    tracer.startSpan('SELECT', {}, undefined).end()
    request.end()
    await tp.forceFlush()
    expect(existsSync(file)).toBe(false)
    expect(existsSync(dir)).toBe(false)
    expect(processor.openTraces).toBe(0)
  })

  it('holds at most maxTraces open traces: the oldest is dropped', async () => {
    const { tp, processor } = providerWith({ store: false, maxTraces: 2 })
    const tracer = tp.getTracer('app')
    const roots = Array.from({ length: 5 }, (_, i) => tracer.startSpan(`request ${i}`))
    expect(processor.openTraces).toBe(2)
    for (const span of roots) span.end()
    await tp.forceFlush()
    expect(processor.openTraces).toBe(0)
  })

  it('a write that fails goes to onError, never to the app', async () => {
    const notADir = join(root, 'a-file')
    writeFileSync(notADir, 'not a store')
    const errors: Error[] = []
    const { tp } = providerWith({ store: notADir, onError: (e) => errors.push(e) })
    await expect(runAiSdkAgent(provider, tp.getTracer('ai'), { integration: 'current' })).resolves.toBe(
      'A17 shipped on Monday.',
    )
    await tp.forceFlush()
    expect(errors.map((e) => e.message)).toEqual([expect.stringContaining('could not open the run store')])
  })

  it('a span it cannot read is reported to onError, not thrown', () => {
    const errors: Error[] = []
    const processor = new CrashlabSpanProcessor({ store: false, onError: (e) => errors.push(e) })
    const broken = {
      spanContext: () => {
        throw new Error('no context')
      },
    } as unknown as ReadableSpanLike
    expect(() => processor.onStart(broken)).not.toThrow()
    expect(() => processor.onEnd(broken)).not.toThrow()
    expect(errors.map((e) => e.message)).toEqual(['no context', 'no context'])
  })

  it('writes the part of a trace this process ran once its local root ends, under a parent from another process', async () => {
    const file = join(root, 'remote.jsonl')
    const { tp, processor } = providerWith({ file })
    const tracer = tp.getTracer('app')
    const remote = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: 'ab'.repeat(16),
      spanId: 'cd'.repeat(8),
      traceFlags: 1,
      isRemote: true,
    })
    const agent = agentSpan(tracer, remote)
    chatSpan(tracer, agent).end()
    expect(processor.openTraces).toBe(1)
    agent.end()
    expect(processor.openTraces).toBe(0)
    await tp.forceFlush()
    const [written] = runsIn(file)
    expect(written).toMatchObject({ traceId: 'ab'.repeat(16), run: { name: 'order-bot' } })
    expect(written!.run.steps.map((s) => s.type)).toEqual(['llm'])
    expect(readOtlp(readFileSync(file, 'utf8'), file).map((s) => s.parentSpanId)).toContain('cd'.repeat(8))
  })

  it('forceFlush writes a trace whose root ended with a child still open (dropped when it ends), and keeps traces still running', async () => {
    const file = join(root, 'open-child.jsonl')
    const { tp, processor } = providerWith({ file })
    const tracer = tp.getTracer('app')
    const done = agentSpan(tracer)
    chatSpan(tracer, done).end()
    const late = chatSpan(tracer, done) // still open when the root ends
    done.end()
    const running = agentSpan(tracer)
    chatSpan(tracer, running).end()
    expect(processor.openTraces).toBe(2)
    await tp.forceFlush()
    expect(runsIn(file).map((t) => t.run.steps.length)).toEqual([1])
    expect(processor.openTraces).toBe(1)
    running.end()
    // The child that ends after its trace was written, and a span under it, are not a run of their own.
    chatSpan(tracer, late).end()
    late.end()
    await tp.forceFlush()
    expect(runsIn(file).map((t) => t.run.steps.length)).toEqual([1, 1])
  })

  it('shutdown drops the traces still running and takes no more spans', async () => {
    const file = join(root, 'shutdown.jsonl')
    const { tp, processor } = providerWith({ file })
    const tracer = tp.getTracer('app')
    const running = agentSpan(tracer)
    chatSpan(tracer, running).end()
    await processor.shutdown()
    expect(processor.openTraces).toBe(0)
    running.end()
    const late = agentSpan(tracer)
    chatSpan(tracer, late).end()
    late.end()
    await processor.forceFlush()
    expect(existsSync(file)).toBe(false)
  })
})
