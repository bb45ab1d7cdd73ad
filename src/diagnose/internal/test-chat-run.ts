import { createRun } from '../../case/create-run.ts'
import type { JsonValue } from '../../case/schema/json.ts'
import type { Message, ToolDefinition } from '../../case/schema/normalized.ts'
import type { CheckResult, Run } from '../../case/schema/run.ts'

/**
 * Hand-built chat runs for the heuristic's tests (not shipped: `test-*` files are excluded from the
 * build). Unlike the matchers' `refundRun`, every model call carries the conversation so far (system
 * prompt, user message, earlier tool calls and results, tool definitions), which is what a rule that
 * asks "did this value appear earlier?" reads.
 */

/** One model call: a tool call (run as the next step), an answer, or a provider failure. */
export type ChatTurn =
  | {
      call: {
        name: string
        args: JsonValue
        result?: JsonValue
        error?: string
        /** What the agent sent the model as the result (default: the result as JSON, or `Error: …`). */
        sent?: string
      }
    }
  | { text: string }
  | { status: number }

export interface ChatRunOptions {
  system?: string
  user: string
  tools?: ToolDefinition[]
  turns: ChatTurn[]
  checks?: CheckResult[]
  status?: Run['status']
}

const T0 = Date.parse('2026-11-01T09:00:00.000Z')
const at = (ms: number) => new Date(T0 + ms).toISOString()

/**
 * A finished chat run, graded: `outcome` is `pass` when every check passed, `fail` when one failed,
 * `unknown` with none.
 *
 * @example
 * const run = chatRun({ user: 'Refund order A17', turns: [{ call: { name: 'get_order', args: { order_id: 'A17' } } }] })
 */
export function chatRun(options: ChatRunOptions): Run {
  const run = createRun({ name: 'test-agent', input: options.user, id: '01M8KQ0000HEURISTIC0000000' })
  const messages: Message[] = [{ role: 'user', parts: [{ type: 'text', text: options.user }] }]
  let calls = 0
  for (const turn of options.turns) {
    const index = run.steps.length
    const failed = 'status' in turn
    const call = 'call' in turn ? { id: `call_${++calls}`, ...turn.call } : null
    run.steps.push({
      index,
      type: 'llm',
      provider: 'openai-chat',
      endpoint: 'chat.completions',
      timing: { startedAt: at(index * 100), durationMs: 50 },
      error: failed ? { name: 'APIError', message: `HTTP ${turn.status}`, status: turn.status } : null,
      request: {
        wire: { method: 'POST', url: 'https://api.openai.com/v1/chat/completions', headers: {}, body: null },
        normalized: {
          model: 'gpt-4o-mini',
          system: options.system === undefined ? [] : [{ type: 'text', text: options.system }],
          messages: structuredClone(messages),
          tools: options.tools ?? [],
          params: {},
        },
        requestHash: `sha256:${(index + 1).toString(16).padStart(64, '0')}`,
      },
      response: failed
        ? {
            incomplete: false,
            wire: { status: turn.status, headers: {}, body: { error: 'upstream' } },
            normalized: null,
          }
        : {
            incomplete: false,
            wire: { status: 200, headers: {}, body: null },
            normalized: {
              model: 'gpt-4o-mini',
              requestId: null,
              parts: 'text' in turn ? [{ type: 'text', text: turn.text }] : [],
              toolCalls: call ? [{ type: 'tool_call', id: call.id, name: call.name, args: call.args }] : [],
              finishReason: call ? 'tool_calls' : 'stop',
              usage: { inputTokens: 100, outputTokens: 20 },
            },
          },
    })
    run.usage.llmCalls++
    if ('text' in turn) messages.push({ role: 'assistant', parts: [{ type: 'text', text: turn.text }] })
    if (!call) continue
    messages.push({
      role: 'assistant',
      parts: [{ type: 'tool_call', id: call.id, name: call.name, args: call.args }],
    })
    const result = call.error === undefined ? (call.result ?? { ok: true }) : undefined
    run.steps.push({
      index: index + 1,
      type: 'tool',
      name: call.name,
      callId: call.id,
      args: call.args,
      ...(result === undefined ? {} : { result }),
      sideEffects: false,
      timing: { startedAt: at((index + 1) * 100), durationMs: 20 },
      error: call.error === undefined ? null : { name: 'Error', message: call.error },
    })
    run.usage.toolCalls++
    const content = call.sent ?? (call.error === undefined ? JSON.stringify(result) : `Error: ${call.error}`)
    messages.push({
      role: 'tool',
      parts: [
        { type: 'tool_result', id: call.id, name: call.name, content, isError: call.error !== undefined },
      ],
    })
  }
  const checks = options.checks ?? []
  run.checks = checks
  run.outcome = checks.length === 0 ? 'unknown' : checks.every((c) => c.passed) ? 'pass' : 'fail'
  run.status = options.status ?? 'ok'
  const last = options.turns.at(-1)
  run.output = last && 'text' in last ? last.text : null
  run.endedAt = at(run.steps.length * 100)
  return run
}
