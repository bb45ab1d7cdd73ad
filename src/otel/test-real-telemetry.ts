import { AsyncLocalStorage } from 'node:async_hooks'
import { createOpenAI } from '@ai-sdk/openai'
import { LegacyOpenTelemetry, OpenTelemetry } from '@ai-sdk/otel'
import { OITracer, traceAgent, traceTool } from '@arizeai/openinference-core'
import { OpenAIInstrumentation } from '@arizeai/openinference-instrumentation-openai'
import { type Context, type ContextManager, context, ROOT_CONTEXT, type Tracer } from '@opentelemetry/api'
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer'
import type { ReadableSpan } from '@opentelemetry/sdk-trace'
import { generateText, stepCountIs, streamText, tool } from 'ai'
import OpenAI from 'openai'
import { z } from 'zod'
import type { ScriptedProvider, ScriptPolicy } from '../testing/index.ts'

// Test helpers: agents traced by the real instrumentations (the AI SDK's telemetry integrations and
// OpenInference's OpenAI instrumentation), over the scripted provider, and their spans as OTLP JSON.

/** One tool call, then an answer once the tool's result is back. */
export const ORDER_POLICY: ScriptPolicy = (request) =>
  request.messages.at(-1)?.role === 'tool'
    ? { text: 'A17 shipped on Monday.' }
    : { toolCalls: [{ name: 'get_order', args: { order_id: 'A17' } }] }

export const ORDER_RESULT = { order_id: 'A17', status: 'shipped' }

/** The spans as the OTLP/HTTP JSON exporter sends them: one ExportTraceServiceRequest. */
export function otlpJson(spans: ReadableSpan[]): string {
  return new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans))
}

export interface AiSdkAgentOptions {
  /** `current`: `OpenTelemetry` (gen_ai.* keys); `legacy`: `LegacyOpenTelemetry` (ai.* keys). */
  integration: 'current' | 'legacy'
  stream?: boolean
  /** The AI SDK's `recordInputs` / `recordOutputs`. Default true. */
  recordContent?: boolean
  prompt?: string
}

/** A `generateText` (or `streamText`) agent named `order-bot` with one tool, traced by the AI SDK's telemetry. */
export async function runAiSdkAgent(
  provider: ScriptedProvider,
  tracer: Tracer,
  options: AiSdkAgentOptions,
): Promise<string> {
  const integration =
    options.integration === 'legacy' ? new LegacyOpenTelemetry({ tracer }) : new OpenTelemetry({ tracer })
  const record = options.recordContent ?? true
  const telemetry = {
    functionId: 'order-bot',
    integrations: [integration],
    ...(!record && { recordInputs: false, recordOutputs: false }),
  }
  const openai = createOpenAI({ apiKey: 'sk-test', baseURL: `${provider.url}/v1` })
  const call = {
    model: openai.chat('gpt-4o-mini'),
    system: 'Answer about orders.',
    prompt: options.prompt ?? 'Where is my order A17?',
    tools: {
      get_order: tool({
        description: 'Look an order up',
        inputSchema: z.object({ order_id: z.string() }),
        execute: async ({ order_id }) => ({ ...ORDER_RESULT, order_id }),
      }),
    },
    stopWhen: stepCountIs(3),
    // The legacy integration is how `experimental_telemetry` users had it.
    ...(options.integration === 'legacy'
      ? { experimental_telemetry: { isEnabled: true, ...telemetry } }
      : { telemetry }),
  }
  if (options.stream) return await streamText(call).text
  return (await generateText(call)).text
}

/** AsyncLocalStorage as OpenTelemetry's context manager, as the Node SDK registers it. */
class AsyncContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>()
  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.storage.run(ctx, () => fn.call(thisArg, ...args))
  }
  bind<T>(ctx: Context, target: T): T {
    if (typeof target !== 'function') return target
    const manager = this
    return function (this: unknown, ...args: unknown[]) {
      return manager.with(ctx, () => (target as (...a: unknown[]) => unknown).apply(this, args))
    } as T
  }
  enable(): this {
    return this
  }
  disable(): this {
    this.storage.disable()
    return this
  }
}

/**
 * An agent written by hand on the OpenAI SDK, traced by OpenInference: the OpenAI instrumentation
 * writes the LLM spans, OpenInference's `traceAgent` and `traceTool` the AGENT and TOOL spans around
 * them, so that both model calls are one trace. `hidden` is OpenInference's `hideInputs`/`hideOutputs`.
 */
export async function runOpenInferenceAgent(
  provider: ScriptedProvider,
  tracerProvider: { getTracer(name: string): Tracer },
  options: { hidden?: boolean } = {},
): Promise<void> {
  const traceConfig = options.hidden ? { hideInputs: true, hideOutputs: true } : {}
  const manager = new AsyncContextManager()
  context.setGlobalContextManager(manager)
  const instrumentation = new OpenAIInstrumentation({ tracerProvider, traceConfig })
  instrumentation.manuallyInstrument(OpenAI)
  const tracer = new OITracer({ tracer: tracerProvider.getTracer('order-bot'), traceConfig })
  try {
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${provider.url}/v1` })
    const getOrder = traceTool(async (args: { order_id: string }) => ({ ...ORDER_RESULT, ...args }), {
      name: 'get_order',
      tracer,
    })
    const tools = [
      {
        type: 'function' as const,
        function: {
          name: 'get_order',
          description: 'Look an order up',
          parameters: { type: 'object', properties: { order_id: { type: 'string' } } },
        },
      },
    ]
    const agent = traceAgent(
      async (question: string) => {
        const messages: OpenAI.ChatCompletionMessageParam[] = [
          { role: 'system', content: 'Answer about orders.' },
          { role: 'user', content: question },
        ]
        const first = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools })
        const asked = first.choices[0]!.message
        messages.push(asked)
        for (const call of asked.tool_calls ?? []) {
          if (call.type !== 'function') continue
          const result = await getOrder(JSON.parse(call.function.arguments))
          messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) })
        }
        const last = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools })
        return last.choices[0]!.message.content
      },
      { name: 'order-bot', tracer },
    )
    await agent('Where is my order A17?')
  } finally {
    instrumentation.disable()
    manager.disable()
    context.disable()
  }
}
