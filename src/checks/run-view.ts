import type { Run } from '../case/schema/run.ts'
import type { LlmStep } from '../case/schema/step.ts'
import { collectToolCalls, type ToolCall } from './internal/collect-tool-calls.ts'

export type { ToolCall } from './internal/collect-tool-calls.ts'

/**
 * Options of `RunView.toolCalls`.
 *
 * @example
 * run.toolCalls('issue_refund', { okOnly: true }) // refunds that went through (or a fork refused)
 * run.toolCalls(undefined, { server: 'orders-server' }) // every call to that MCP server
 */
export interface ToolCallsOptions {
  /**
   * Leave out calls that failed (`isFailedToolCall`: the tool threw, the API flagged the result, or the
   * tool returned an object whose `isError` is true or whose top-level `error` is set). Blocked calls (a side-effect tool a fork refused to run) are kept: the
   * agent made them, so an oracle judges a fork by what the agent tried, as it would the live run.
   */
  okOnly?: boolean
  /** Only the calls an MCP server answered, by its name (`ToolCall.server`). */
  server?: string
}

/**
 * A finished run as oracles read it: every field of the `Run`, plus helpers that answer the usual questions
 * without walking the wire data. The helpers compute on first use and remember the answer, so a view costs
 * nothing until it is asked.
 *
 * @example
 * check('refund-bot', (run: RunView) => run.llmCalls().length <= 10 || `took ${run.llmCalls().length} LLM calls`)
 */
export interface RunView extends Readonly<Run> {
  /** The run the view reads; pass it to APIs that want a `Run`. */
  readonly run: Run
  /** The LLM steps, in order. */
  llmCalls(): LlmStep[]
  /**
   * The tool calls, in step order: wrapped tools' steps, MCP tools' steps (with their `server`) and the
   * calls in model responses, merged so each call appears once. With `name`, only that tool's calls.
   */
  // biome-ignore lint/suspicious/noExplicitAny: see ToolCall
  toolCalls<Args = any, Result = any>(name?: string, options?: ToolCallsOptions): ToolCall<Args, Result>[]
  /** The text of the last assistant response that had text; null when no response had any. */
  readonly finalMessage: string | null
}

/**
 * Wraps a run for oracles. The run is not copied and must not change while the view is in use.
 *
 * @example
 * const view = viewRun(run)
 * for (const call of view.toolCalls('issue_refund', { okOnly: true })) console.log(call.args)
 * view.finalMessage // 'I have refunded $49 for order A17.'
 */
export function viewRun(run: Run): RunView {
  let toolCalls: ToolCall[] | undefined
  let llmCalls: LlmStep[] | undefined
  let finalMessage: string | null | undefined
  const allToolCalls = (): ToolCall[] => {
    toolCalls ??= collectToolCalls(run)
    return toolCalls
  }
  return {
    ...run,
    run,
    llmCalls() {
      llmCalls ??= run.steps.filter((s): s is LlmStep => s.type === 'llm')
      // A copy each time: an oracle that sorts or splices the list must not change what the next one sees.
      return [...llmCalls]
    },
    toolCalls(name?: string, options: ToolCallsOptions = {}): ToolCall[] {
      return allToolCalls().filter(
        (c) =>
          (name === undefined || c.name === name) &&
          (options.server === undefined || c.server === options.server) &&
          !(options.okOnly && c.isError && !c.blocked),
      )
    },
    get finalMessage() {
      if (finalMessage === undefined) finalMessage = lastAssistantText(run)
      return finalMessage
    },
  }
}

function lastAssistantText(run: Run): string | null {
  for (let i = run.steps.length - 1; i >= 0; i--) {
    const step = run.steps[i]!
    if (step.type !== 'llm') continue
    const texts: string[] = []
    for (const part of step.response?.normalized?.parts ?? []) if (part.type === 'text') texts.push(part.text)
    // A response made only of tool calls is not what the agent said last: keep looking back.
    if (texts.length > 0) return texts.join('\n')
  }
  return null
}
