import { context, SpanStatusCode, trace } from '@opentelemetry/api'
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer'
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace'
import { describe, expect, it } from 'vitest'
import { readOtlp } from '../read-otlp.ts'
import { decodeTraceRequest } from './otlp-protobuf.ts'

/** Spans the OTel SDK made, of every attribute type, with an event, a parent and an error status. */
async function sdkSpans() {
  const exporter = new InMemorySpanExporter()
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] })
  const tracer = provider.getTracer('protobuf-test', '1.2.3')
  const root = tracer.startSpan('invoke_agent weather', {
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'weather' },
  })
  const chat = tracer.startSpan(
    'chat gpt-4o',
    {
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.temperature': 0.25,
        'gen_ai.request.max_tokens': 256,
        'gen_ai.usage.input_tokens': 1_000_000_007,
        'gen_ai.request.stream': false,
        'gen_ai.response.finish_reasons': ['stop', 'length'],
        'gen_ai.input.messages': JSON.stringify([
          { role: 'user', parts: [{ type: 'text', content: 'Héllo ☀' }] },
        ]),
        negative: -42,
      },
    },
    trace.setSpan(context.active(), root),
  )
  chat.addEvent('gen_ai.choice', { index: 0, finish_reason: 'stop' })
  chat.setStatus({ code: SpanStatusCode.ERROR, message: 'rate limited' })
  chat.end()
  root.end()
  await provider.forceFlush()
  return exporter.getFinishedSpans()
}

describe('decodeTraceRequest', () => {
  it("reads the SDK's protobuf encoding of spans into what its JSON encoding of the same spans reads as", async () => {
    const spans = await sdkSpans()
    const protobuf = ProtobufTraceSerializer.serializeRequest(spans) as Uint8Array
    const json = new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans) as Uint8Array)
    const fromProtobuf = readOtlp(JSON.stringify(decodeTraceRequest(protobuf)), 'protobuf')
    expect(fromProtobuf).toEqual(readOtlp(json, 'json'))
    const chat = fromProtobuf.find((s) => s.name === 'chat gpt-4o')
    expect(chat).toMatchObject({
      parentSpanId: fromProtobuf.find((s) => s.name.startsWith('invoke_agent'))?.spanId,
      status: { code: 2, message: 'rate limited' },
      scope: { name: 'protobuf-test', version: '1.2.3' },
      attributes: {
        'gen_ai.request.temperature': 0.25,
        'gen_ai.usage.input_tokens': 1_000_000_007,
        'gen_ai.request.stream': false,
        'gen_ai.response.finish_reasons': ['stop', 'length'],
        negative: -42,
      },
    })
    expect(chat?.events).toEqual([
      {
        name: 'gen_ai.choice',
        timeUnixNano: expect.any(BigInt),
        attributes: { index: 0, finish_reason: 'stop' },
      },
    ])
    expect(String(chat?.attributes['gen_ai.input.messages'])).toContain('Héllo ☀')
    expect(chat?.traceId).toMatch(/^[0-9a-f]{32}$/)
  })

  it('refuses bytes that are not a protobuf message, naming what is wrong', () => {
    expect(() => decodeTraceRequest(Uint8Array.from([0x0a, 0x05, 0x01]))).toThrow('runs past the end')
    expect(() => decodeTraceRequest(Uint8Array.from([0x0b]))).toThrow('wire type 3')
    expect(() => decodeTraceRequest(Uint8Array.from([0x08, 0x01]))).toThrow(
      'field 1 should be length-delimited',
    )
    // A field this version of OTLP does not have is skipped, as protobuf readers do.
    expect(decodeTraceRequest(Uint8Array.from([0x10, 0x01]))).toEqual({ resourceSpans: [] })
    expect(decodeTraceRequest(new Uint8Array())).toEqual({ resourceSpans: [] })
  })
})
