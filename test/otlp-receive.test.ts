import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { context, trace } from '@opentelemetry/api'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer'
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ToolStep } from '../src/case/schema/step.ts'
import { saveTrace } from '../src/cli/internal/otlp-import.ts'
import { CrashlabError } from '../src/errors.ts'
import { exportRunsOtlpHttp, readOtlp, startOtlpReceiver, tracesToRuns } from '../src/otel/index.ts'
import { stepContent } from '../src/otel/internal/test-steps.ts'
import { openStore, type RunStore } from '../src/store/index.ts'

// The wire path, with real parts on loopback: the OpenTelemetry SDK's own OTLP/HTTP exporter (JSON)
// posting to crashlab's receiver, and crashlab's sender posting to it, each run landing in a store.
const FIXTURES = resolve(import.meta.dirname, '..', 'src', 'otel', 'fixtures')
let dir: string
let store: RunStore

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'crashlab-otlp-receive-'))
  store = await openStore({ dir: join(dir, 'runs') })
})
afterAll(() => {
  store.close()
  rmSync(dir, { recursive: true, force: true })
})

/** A receiver on a free port that stores each trace as `crashlab receive` does; resolves `stored` on the first. */
async function receiver(flushMs: number) {
  const lines: string[] = []
  let first: (id: string) => void = () => {}
  const stored = new Promise<string>((resolve) => {
    first = resolve
  })
  const r = await startOtlpReceiver({
    port: 0,
    flushMs,
    onTrace(t) {
      const saved = saveTrace(store, t, { tags: ['received'], config: {}, from: 'received' })
      lines.push(...saved)
      first(/ as (\w+) /.exec(saved[0] ?? '')?.[1] ?? '')
    },
  })
  return { ...r, lines, stored }
}

describe('startOtlpReceiver', () => {
  it("stores what the OTel SDK's OTLP/HTTP exporter posts: a span per request, one run once the root is in", async () => {
    const r = await receiver(100)
    const exporter = new OTLPTraceExporter({ url: `${r.url}/v1/traces` })
    // A simple processor exports each span as it ends: the children arrive before their root, each alone.
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] })
    const tracer = provider.getTracer('weather-agent-instrumentation')
    const awsKey = 'AKIAIOSFODNN7EXAMPLF'
    const root = tracer.startSpan('invoke_agent weather-agent', {
      attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'weather-agent' },
    })
    const inRoot = trace.setSpan(context.active(), root)
    const chat = (input: unknown[], output: unknown[], tokens: [number, number]) =>
      tracer
        .startSpan(
          'chat gpt-4o',
          {
            attributes: {
              'gen_ai.operation.name': 'chat',
              'gen_ai.provider.name': 'openai',
              'gen_ai.request.model': 'gpt-4o',
              'gen_ai.usage.input_tokens': tokens[0],
              'gen_ai.usage.output_tokens': tokens[1],
              'gen_ai.input.messages': JSON.stringify(input),
              'gen_ai.output.messages': JSON.stringify(output),
              'server.address': 'api.openai.com',
              'server.port': 443,
            },
          },
          inRoot,
        )
        .end()
    const user = { role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] }
    const call = { type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }
    chat([user], [{ role: 'assistant', parts: [call], finish_reason: 'tool_call' }], [50, 12])
    tracer
      .startSpan(
        'execute_tool get_weather',
        {
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': 'get_weather',
            'gen_ai.tool.call.id': 'call_1',
            'gen_ai.tool.call.arguments': '{"city":"Paris"}',
            'gen_ai.tool.call.result': JSON.stringify({ temperature: 18, key: awsKey }),
          },
        },
        inRoot,
      )
      .end()
    const answer = { role: 'assistant', parts: [{ type: 'text', content: '18 °C and sunny.' }] }
    chat([user], [{ ...answer, finish_reason: 'stop' }], [80, 9])
    root.end()
    await provider.forceFlush()
    const id = await r.stored
    await provider.shutdown()
    await r.close()

    expect(r.lines).toEqual([
      expect.stringMatching(/^received trace [0-9a-f]{32} as \w+ \(weather-agent, 3 steps; gen_ai\)$/),
    ])
    const run = store.load(id)
    expect(run.name).toBe('weather-agent')
    expect(run.tags).toEqual(expect.arrayContaining(['received', 'otel']))
    expect(run.steps.map((s) => s.type)).toEqual(['llm', 'tool', 'llm'])
    expect(run.usage).toMatchObject({ inputTokens: 130, outputTokens: 21, llmCalls: 2, toolCalls: 1 })
    expect(run.input).toBe('Weather in Paris?')
    expect(run.output).toBe('18 °C and sunny.')
    const tool = run.steps[1] as ToolStep
    expect(tool).toMatchObject({ name: 'get_weather', callId: 'call_1', args: { city: 'Paris' } })
    // Stored redacted, as every run is.
    expect(JSON.stringify(run)).not.toContain(awsKey)
    expect(JSON.stringify(tool.result)).toContain('"temperature":18')
  })

  it('reads OTLP protobuf (what an http/protobuf exporter sends) into the same run as OTLP JSON', async () => {
    const memory = new InMemorySpanExporter()
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: memory })] })
    const tracer = provider.getTracer('protobuf-agent')
    const root = tracer.startSpan('invoke_agent order-bot', {
      attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'order-bot' },
    })
    tracer
      .startSpan(
        'execute_tool get_order',
        {
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': 'get_order',
            'gen_ai.tool.call.arguments': '{"id":"A17"}',
            'gen_ai.tool.call.result': '{"status":"shipped"}',
          },
        },
        trace.setSpan(context.active(), root),
      )
      .end()
    root.end()
    await provider.forceFlush()
    const spans = memory.getFinishedSpans()
    const ids: string[] = []
    for (const [type, body] of [
      ['application/x-protobuf', ProtobufTraceSerializer.serializeRequest(spans)],
      ['application/json', JsonTraceSerializer.serializeRequest(spans)],
    ] as const) {
      const r = await receiver(60_000)
      const answer = await fetch(`${r.url}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': type },
        body: body as Uint8Array<ArrayBuffer>,
      })
      expect(answer.status).toBe(200)
      expect(answer.headers.get('content-type')).toBe(type)
      await answer.arrayBuffer()
      await r.close()
      ids.push(await r.stored)
    }
    const [fromProtobuf, fromJson] = ids.map((id) => store.load(id))
    expect(fromProtobuf?.name).toBe('order-bot')
    expect(fromProtobuf?.steps.map(stepContent)).toEqual([
      {
        type: 'tool',
        name: 'get_order',
        args: { id: 'A17' },
        result: { status: 'shipped' },
        callId: undefined,
        error: null,
      },
    ])
    expect(fromProtobuf?.steps.map(stepContent)).toEqual(fromJson?.steps.map(stepContent))
    await provider.shutdown()
  })

  it('crashlab out and back in: a run sent by exportRunsOtlpHttp is stored as the same run, held until close', async () => {
    const [imported] = tracesToRuns(
      readOtlp(readFileSync(join(FIXTURES, 'genai-agent.json'), 'utf8'), 'genai-agent.json'),
    )
    if (!imported) throw new Error('the fixture holds no agent trace')
    const original = imported.run
    // A quiet period longer than the test: only close() turns the trace into a run.
    const r = await receiver(60_000)
    const { url } = await exportRunsOtlpHttp([original], { endpoint: r.url, includeContent: true })
    expect(url).toBe(`${r.url}/v1/traces`)
    expect(r.lines).toEqual([])
    await r.close()
    const run = store.load(await r.stored)
    expect(run.name).toBe(original.name)
    expect(run.steps.map(stepContent)).toEqual(original.steps.map(stepContent))
    expect(run.usage).toEqual(original.usage)
    expect(run.completeness).toBe('complete')
  })

  it('answers 400 with a message for a body that is not OTLP traces, 415 for another content type, 404 elsewhere', async () => {
    const r = await receiver(60_000)
    try {
      const post = (path: string, type: string, body: string) =>
        fetch(`${r.url}${path}`, { method: 'POST', headers: { 'content-type': type }, body })
      const bad = await post('/v1/traces', 'application/json', '{"resourceMetrics":[]}')
      expect(bad.status).toBe(400)
      expect(((await bad.json()) as { message: string }).message).toContain('is not an OTLP trace export')
      const plain = await post('/v1/traces', 'text/plain', 'x')
      expect(plain.status).toBe(415)
      expect(await plain.text()).toContain('application/json (OTLP JSON) or application/x-protobuf')
      // A protobuf request gets its answer in protobuf: a google.rpc.Status holding the message.
      const proto = await post('/v1/traces', 'application/x-protobuf', '\x0a\x05\x01')
      expect(proto.status).toBe(400)
      expect(proto.headers.get('content-type')).toBe('application/x-protobuf')
      expect(Buffer.from(await proto.arrayBuffer()).toString('utf8')).toContain(
        'is not an OTLP protobuf trace export (a field runs past the end of the message)',
      )
      const elsewhere = await post('/v1/metrics', 'application/json', '{}')
      expect(elsewhere.status).toBe(404)
      await elsewhere.arrayBuffer()
      const ok = await post('/v1/traces', 'application/json', '{"resourceSpans":[]}')
      expect(ok.status).toBe(200)
      expect(await ok.json()).toEqual({ partialSuccess: {} })
      // The sender names the endpoint and the status it got.
      const refused = exportRunsOtlpHttp([], { endpoint: `${r.url}/elsewhere/` })
      await expect(refused).rejects.toThrow(CrashlabError)
      await expect(refused).rejects.toThrow(`${r.url}/elsewhere/v1/traces answered 404`)
    } finally {
      await r.close()
    }
  })

  it('the sender gives up on an endpoint that never answers, and says so', async () => {
    const silent = createServer(() => {})
    await new Promise<void>((done) => silent.listen(0, '127.0.0.1', done))
    const { port } = silent.address() as AddressInfo
    try {
      await expect(
        exportRunsOtlpHttp([], { endpoint: `http://127.0.0.1:${port}`, timeoutMs: 200 }),
      ).rejects.toThrow(
        `cannot reach the OTLP endpoint http://127.0.0.1:${port}/v1/traces (no answer in 200 ms)`,
      )
    } finally {
      silent.closeAllConnections()
      await new Promise((done) => silent.close(done))
    }
  })

  it('a port in use is a clear error', async () => {
    const r = await receiver(60_000)
    try {
      const port = Number(new URL(r.url).port)
      await expect(startOtlpReceiver({ port, onTrace: () => {} })).rejects.toThrow(
        `cannot listen on 127.0.0.1:${port} (EADDRINUSE)`,
      )
    } finally {
      await r.close()
    }
  })
})
