import { createRun } from '../../case/create-run.ts'
import type { JsonValue } from '../../case/schema/json.ts'
import type { Message, Part, ToolCallPart } from '../../case/schema/normalized.ts'
import type { Run } from '../../case/schema/run.ts'
import type { LlmStep, StepError } from '../../case/schema/step.ts'

/**
 * Runs for the checks' tests (not shipped: `test-*` files are excluded from the build), built from a short
 * script of turns the way an OpenAI chat agent loop produces them: every LLM request carries the whole
 * conversation so far, a wrapped tool adds a `tool` step, and an unwrapped tool is seen only as the
 * `tool_result` part the agent sends back in its next request.
 */

/** A tool call the model asks for. */
export interface ScriptCall {
  id: string
  name: string
  args: JsonValue
}

export type ScriptTurn =
  /** One LLM call: the request is the conversation so far; the response says `text` and/or asks for `calls`. */
  | { llm: { text?: string; calls?: ScriptCall[] } }
  /** A wrapped tool ran: a `tool` step; with a `callId`, its result also goes back into the conversation. */
  | {
      tool: {
        name: string
        args: JsonValue
        callId?: string
        result?: JsonValue
        error?: StepError
        blocked?: boolean
      }
    }
  /** An unwrapped tool's result, seen only in the next request. */
  | { toolResult: { id: string; content: string; isError?: boolean } }

const T0 = Date.parse('2026-11-01T09:00:00.000Z')

/**
 * A finished `refund-bot` run (status `ok`) with one step per `llm` / `tool` turn.
 *
 * @example
 * const run = buildAgentRun([{ llm: { calls: [{ id: 'c1', name: 'get_order', args: { order_id: 'A17' } }] } }])
 */
export function buildAgentRun(turns: ScriptTurn[], options: { name?: string; output?: JsonValue } = {}): Run {
  const run = createRun({
    id: '01M8KQ0000CHECKS0000000000',
    name: options.name ?? 'refund-bot',
    input: 'Refund my order A17, it arrived broken',
    startedAt: new Date(T0),
  })
  const conversation: Message[] = [
    { role: 'user', parts: [{ type: 'text', text: 'Refund my order A17, it arrived broken' }] },
  ]
  let clock = 0
  for (const turn of turns) {
    const index = run.steps.length
    clock += 100
    const timing = { startedAt: new Date(T0 + clock).toISOString(), durationMs: 50 }
    if ('llm' in turn) {
      const calls: ToolCallPart[] = (turn.llm.calls ?? []).map((c) => ({ type: 'tool_call', ...c }))
      const parts: Part[] = turn.llm.text === undefined ? [] : [{ type: 'text', text: turn.llm.text }]
      run.steps.push(llmStep(index, timing, structuredClone(conversation), parts, calls))
      conversation.push({ role: 'assistant', parts: [...parts, ...calls] })
      run.usage.llmCalls++
    } else if ('tool' in turn) {
      const { name, args, callId, result, error, blocked } = turn.tool
      run.steps.push({
        index,
        type: 'tool',
        name,
        args,
        ...(callId === undefined ? {} : { callId }),
        ...(result === undefined ? {} : { result }),
        ...(blocked === undefined ? {} : { blocked }),
        sideEffects: name === 'issue_refund',
        error: error ?? null,
        timing,
      })
      run.usage.toolCalls++
      if (callId !== undefined) {
        const content = error ? error.message : JSON.stringify(result ?? null)
        conversation.push({
          role: 'tool',
          parts: [{ type: 'tool_result', id: callId, content, isError: error !== undefined }],
        })
      }
    } else {
      const { id, content, isError } = turn.toolResult
      conversation.push({
        role: 'tool',
        parts: [{ type: 'tool_result', id, content, isError: isError ?? false }],
      })
    }
  }
  run.status = 'ok'
  run.output = options.output ?? null
  run.endedAt = new Date(T0 + clock + 100).toISOString()
  return run
}

function llmStep(
  index: number,
  timing: LlmStep['timing'],
  messages: Message[],
  parts: Part[],
  toolCalls: ToolCallPart[],
): LlmStep {
  return {
    index,
    type: 'llm',
    provider: 'openai-chat',
    endpoint: 'chat.completions',
    timing,
    error: null,
    request: {
      wire: { method: 'POST', url: 'https://api.openai.com/v1/chat/completions', headers: {}, body: null },
      normalized: { model: 'gpt-4o-mini', system: [], messages, tools: [], params: {} },
      requestHash: `sha256:${index.toString(16).padStart(64, '0')}`,
    },
    response: {
      incomplete: false,
      wire: { status: 200, headers: {}, body: null },
      normalized: {
        model: 'gpt-4o-mini',
        requestId: null,
        parts,
        toolCalls,
        finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
        usage: { inputTokens: 10, outputTokens: 5 },
      },
    },
  }
}
