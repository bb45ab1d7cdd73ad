import { LegacyOpenTelemetry, OpenTelemetry } from '@ai-sdk/otel'
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer'
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace'
import { registerTelemetry } from 'ai'
import { expect } from 'vitest'
import { startScriptedProvider } from '../../src/testing/index.ts'
import { orderBot } from '../fixtures/otel-replay/order-bot.ts'

/**
 * The order bot run "in production": on the scripted provider, traced by the AI SDK's OpenTelemetry
 * integration into the OTel SDK's in-memory exporter, and written as OTLP JSON (what an OTLP file
 * exporter writes). The provider is closed before the trace comes back, so a replay cannot reach it.
 * `strip` takes content out as an instrumentation with content capture off leaves it: from every span,
 * or the last model call's answer only. `legacy` traces with the AI SDK's legacy integration (`ai.*` keys). Sets `ORDER_BOT_BASE_URL` to the provider's URL.
 */
export async function tracedOrderBot(
  question: string,
  options: { strip?: 'all' | 'last-output'; legacy?: boolean } = {},
): Promise<{ otlp: string; served: number }> {
  const exporter = new InMemorySpanExporter()
  const tracing = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] })
  const tracer = tracing.getTracer('order-bot')
  registerTelemetry(options.legacy ? new LegacyOpenTelemetry({ tracer }) : new OpenTelemetry({ tracer }))
  if (options.legacy) process.env.ORDER_BOT_TELEMETRY = 'legacy'
  const provider = await startScriptedProvider({
    policy: (request) =>
      request.messages.at(-1)?.role === 'tool'
        ? { text: 'Order A17 shipped with DHL.' }
        : { toolCalls: [{ name: 'get_order', args: { order_id: 'A17' } }] },
  })
  process.env.ORDER_BOT_BASE_URL = `${provider.url}/v1`
  try {
    const answer = await orderBot(question)
    expect(answer).toBe('Order A17 shipped with DHL.')
    await tracing.forceFlush()
  } finally {
    registerTelemetry()
    delete process.env.ORDER_BOT_TELEMETRY
    await provider.close()
  }
  let spans = exporter.getFinishedSpans()
  if (options.strip) {
    // Content capture off (no messages on any span), or the last model call's answer missing.
    const last = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'chat').at(-1)
    const dropped = options.strip === 'all' ? /messages|system_instructions|tool\.call\./ : /output\.messages/
    spans = spans.map((s) =>
      options.strip === 'all' || s === last
        ? Object.assign(Object.create(Object.getPrototypeOf(s)), s, {
            attributes: Object.fromEntries(Object.entries(s.attributes).filter(([k]) => !dropped.test(k))),
          })
        : s,
    )
  }
  return {
    otlp: new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans)),
    served: provider.requests.length,
  }
}
