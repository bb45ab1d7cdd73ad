import type { AgentCaseEvent } from '../../case/agentcase/schema.ts'
import type { JsonValue } from '../../case/schema/json.ts'
import type { Difference } from '../../diff/difference.ts'
import { CrashlabError, type ErrorCode } from '../../errors.ts'
import type { MockModelRequest, MockReplayContext, RecordedToolResult } from '../mock-replay-context.ts'
import { describeEvent, type RecordedInteraction } from './interactions.ts'
import { diffRequest, renderDifferences } from './request-diff.ts'

/**
 * The one implementation of `MockReplayContext`: a cursor over the recorded interactions. It fails
 * closed: the first contract failure is kept and thrown again by every later call and by
 * `runMockReplay`, so an agent that swallows errors cannot turn a broken replay into a passing one.
 */

export interface ReplayCursorOptions {
  source: string
  allowIncomplete: boolean
  floatTolerance: number | undefined
}

export class ReplayCursor implements MockReplayContext {
  /** The first contract failure, if any. */
  failure: CrashlabError | undefined
  consumedModel = 0
  consumedTool = 0
  private next = 0
  private ended = false
  private readonly items: readonly RecordedInteraction[]
  private readonly options: ReplayCursorOptions

  constructor(items: readonly RecordedInteraction[], options: ReplayCursorOptions) {
    this.items = items
    this.options = options
  }

  get consumed(): number {
    return this.next
  }

  get remaining(): number {
    return this.items.length - this.next
  }

  modelResponse(request?: MockModelRequest): JsonValue {
    const item = this.take('model', 'a model response')
    if (request !== undefined && request !== null) {
      this.match(
        item,
        diffRequest(item.request.payload, request, item.request.sequence, this.options.floatTolerance),
      )
    }
    const answer = this.answer(item)
    this.next++
    this.consumedModel++
    return structuredClone(answer.payload.output ?? null)
  }

  toolResult(name: string, args: unknown): RecordedToolResult {
    const item = this.take('tool', `the result of tool ${JSON.stringify(name)}`)
    const recorded = item.request.payload
    // The reference's own fixture names the tool `tool_name`; the payload contract says `name`.
    const nameKey = 'name' in recorded || !('tool_name' in recorded) ? 'name' : 'tool_name'
    this.match(
      item,
      diffRequest(
        recorded,
        { [nameKey]: name, arguments: args === undefined ? {} : args },
        item.request.sequence,
        this.options.floatTolerance,
      ),
    )
    const p = this.answer(item).payload
    this.next++
    this.consumedTool++
    return {
      status: p.status === 'failure' ? 'failure' : 'success',
      result: p.result === undefined ? undefined : structuredClone(p.result),
      error: p.error === undefined ? undefined : structuredClone(p.error),
      callId: typeof p.call_id === 'string' ? p.call_id : undefined,
    }
  }

  /** Ends the replay: later calls (a timer the code left behind) fail with E_MOCK_EXTRA. */
  end(): void {
    this.ended = true
  }

  /** Throws E_MOCK_UNCONSUMED when the code returned before asking for every recorded interaction. */
  assertConsumed(): void {
    if (this.next >= this.items.length) return
    const left = this.items.slice(this.next)
    const models = left.filter((i) => i.kind === 'model').length
    this.fail(
      'E_MOCK_UNCONSUMED',
      `the entrypoint returned after ${this.next} of ${this.items.length} recorded interactions; the next one, ${describeEvent(left[0]!.request)}, was never asked for (${left.length} left: ${models} model, ${left.length - models} tool). The code stopped earlier than the captured execution did: route every model and tool call through the context, or capture the case again.`,
      left.map((i) => ({
        code: 'unconsumed',
        path: `$.events[${i.request.sequence}]`,
        message: describeEvent(i.request),
      })),
    )
  }

  private take(kind: 'model' | 'tool', asked: string): RecordedInteraction {
    if (this.failure) throw this.failure
    const item = this.items[this.next]
    if (this.ended || item === undefined) {
      const last = this.items.at(-1)
      const where = this.ended
        ? ' after the replay ended (the entrypoint had already returned)'
        : this.items.length === 0
          ? ', but the case records no model or tool interaction'
          : `, but all ${this.items.length} recorded interactions were consumed; the last was ${describeEvent(last!.request)}`
      this.fail(
        'E_MOCK_EXTRA',
        `the code asked for ${asked}${where}. A mock replay never calls the model or runs a tool live: the code makes more calls than the captured execution did. Fix the code, or capture the case again.`,
      )
    }
    if (item.kind !== kind) {
      this.fail(
        'E_MOCK_MISMATCH',
        `the code asked for ${asked}, but the next recorded interaction (${this.next + 1} of ${this.items.length}) is ${describeEvent(item.request)}. The code calls things in another order than the captured execution did.`,
      )
    }
    return item
  }

  private match(item: RecordedInteraction, differences: Difference[]): void {
    if (differences.length === 0) return
    const { issues, text } = renderDifferences(differences)
    const what = item.kind === 'model' ? 'model request' : 'tool call'
    this.fail(
      'E_MOCK_MISMATCH',
      `the ${what} does not match the next recorded interaction (${this.next + 1} of ${this.items.length}), ${describeEvent(item.request)}:\n${text}\nThe code sends something other than what was captured; fix the code, or capture the case again. A mock replay has no live fallback.`,
      issues,
    )
  }

  private answer(item: RecordedInteraction): AgentCaseEvent {
    const answer = item.answers[0]
    const wanted = item.kind === 'model' ? 'model.response' : 'tool.result'
    if (answer === undefined) {
      this.fail(
        'E_MOCK_MISSING',
        `the recorded interaction ${this.next + 1} of ${this.items.length}, ${describeEvent(item.request)}, has no ${wanted} in the case: there is no recorded output to serve, and a mock replay never calls the ${item.kind} live. The captured execution probably failed at this call (see its exception event); capture it again with the answer recorded.`,
      )
    }
    if (answer.capture_status !== 'captured' && !this.options.allowIncomplete) {
      this.fail(
        'E_MOCK_MISSING',
        `the recorded ${describeEvent(answer)}, the answer to ${describeEvent(item.request)}, was captured "${answer.capture_status}": serving it could give the code something it never saw. Pass { allowIncomplete: true } to serve it anyway.`,
      )
    }
    return answer
  }

  private fail(code: ErrorCode, detail: string, issues?: CrashlabError['issues']): never {
    const error = new CrashlabError(code, `mock replay of ${this.options.source}: ${detail}`, {
      subject: this.options.source,
      ...(issues && { issues }),
    })
    this.failure ??= error
    throw error
  }
}
