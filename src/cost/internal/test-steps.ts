import { createRun } from '../../case/create-run.ts'
import type { Usage } from '../../case/schema/normalized.ts'
import type { Run } from '../../case/schema/run.ts'
import type { LlmStep, Step } from '../../case/schema/step.ts'

/**
 * LLM steps and runs for the cost tests (not shipped: `test-*` files are excluded from the build), in
 * the shape the engine records: the wire request with its URL, the normalized request and response.
 */

export interface TestStepOptions {
  url: string
  /** The adapter id: `openai-chat`, `openai-responses`, `anthropic-messages`, `gemini`. */
  provider?: string
  /** The model asked for. */
  model: string
  /** The model the provider says it served; null when the response does not say. */
  served?: string | null
  usage: Usage | null
  startedAt?: string
  index?: number
}

/** The instant the cost tests price at, unless a test is about dates. */
export const AT = '2026-11-01T09:00:00.000Z'

/**
 * An LLM step that called `url` for `model` and reported `usage`.
 *
 * @example
 * const step = llmStep({ url: 'https://api.openai.com/v1/chat/completions', model: 'gpt-4o', usage: { inputTokens: 10, outputTokens: 2 } })
 */
export function llmStep(options: TestStepOptions): LlmStep {
  const served = options.served === undefined ? options.model : options.served
  return {
    index: options.index ?? 0,
    type: 'llm',
    provider: options.provider ?? 'openai-chat',
    endpoint: 'chat.completions',
    timing: { startedAt: options.startedAt ?? AT, durationMs: 420 },
    error: null,
    request: {
      wire: {
        method: 'POST',
        url: options.url,
        headers: { 'content-type': 'application/json' },
        body: { model: options.model, messages: [{ role: 'user', content: 'Refund my order A17' }] },
      },
      normalized: {
        model: options.model,
        system: [],
        messages: [{ role: 'user', parts: [{ type: 'text', text: 'Refund my order A17' }] }],
        tools: [],
        params: {},
      },
      requestHash: `sha256:${'0'.repeat(64)}`,
    },
    response: {
      wire: { status: 200, headers: {}, body: { model: served } },
      normalized: {
        model: served,
        requestId: 'req_1',
        parts: [{ type: 'text', text: 'Done.' }],
        toolCalls: [],
        finishReason: 'stop',
        usage: options.usage,
      },
      incomplete: false,
    },
  }
}

/**
 * A finished run of the given steps (renumbered in order), with a tool step after the first one.
 *
 * @example
 * const run = runOf([llmStep({ ... }), llmStep({ ... })])
 */
export function runOf(llmSteps: LlmStep[]): Run {
  const run = createRun({ id: '01M8KQ0000C0ST000000000000', name: 'refund-bot', startedAt: new Date(AT) })
  const steps: Step[] = []
  for (const [i, step] of llmSteps.entries()) {
    steps.push({ ...step, index: steps.length })
    if (i === 0) {
      steps.push({
        index: steps.length,
        type: 'tool',
        name: 'get_order',
        args: { order_id: 'A17' },
        result: { total: 49 },
        sideEffects: false,
        timing: { startedAt: AT, durationMs: 5 },
        error: null,
      })
    }
  }
  return { ...run, status: 'ok', endedAt: AT, steps }
}
