import type { MatcherState, SyncMatcherResult } from 'vitest'
import { CrashlabError, type ToolCall } from '../src/internal.ts'
import { asRunView, plural } from './internal/as-run-view.ts'

/**
 * Tool calls are read through `RunView.toolCalls`, so a call counts whether a wrapped tool recorded it
 * or only the model's response and the agent's reply show it, and calls that failed or were blocked
 * count too (they were made). Arguments are compared with Vitest's own `equals`, the equality of
 * `toEqual`, so asymmetric matchers such as `expect.objectContaining` work inside `args`.
 */

const SHOWN = 20

/**
 * `expect(run).toCallTool(name, args?)`: the run made at least one call of the tool `name`; with `args`,
 * one whose arguments equal `args` (`toEqual` equality, asymmetric matchers allowed). A failure lists
 * the tool calls the run made.
 *
 * @example
 * expect(run).toCallTool('get_order')
 * expect(run).toCallTool('issue_refund', { order_id: 'A17', amount: 49 })
 * expect(run).toCallTool('issue_refund', expect.objectContaining({ amount: expect.any(Number) }))
 * expect(run).not.toCallTool('delete_account')
 */
export function toCallTool(
  this: MatcherState,
  received: unknown,
  name: string,
  args?: unknown,
): SyncMatcherResult {
  const { view } = asRunView(received, 'toCallTool')
  if (typeof name !== 'string' || name === '') {
    throw new CrashlabError(
      'E_MATCHER_USAGE',
      `toCallTool: the tool name must be a non-empty string, got ${String(name)}.`,
    )
  }
  const withArgs = args !== undefined
  const named = view.toolCalls(name)
  const matching = withArgs ? named.filter((c) => this.equals(c.args, args, this.customTesters)) : named
  const pass = matching.length > 0
  const { utils } = this
  const hint = utils.matcherHint('toCallTool', 'run', withArgs ? 'name, args' : 'name', {
    isNot: this.isNot,
    promise: this.promise,
  })
  const wanted = `${utils.EXPECTED_COLOR(name)}${withArgs ? ` with args ${utils.printExpected(args)}` : ''}`

  const message = (): string => {
    if (pass) {
      return (
        `${hint}\n\nExpected no call of ${wanted}, but the run made ${plural(matching.length, 'such call')}:\n` +
        list(matching)
      )
    }
    const all = view.toolCalls()
    const made =
      all.length === 0
        ? 'The run made no tool call at all.'
        : `The run made ${plural(all.length, 'tool call')}:\n${list(all)}`
    const near =
      withArgs && named.length > 0
        ? ` (${plural(named.length, `call`)} of ${name}, none with these args)`
        : ''
    return `${hint}\n\nExpected a call of ${wanted}${near}.\n${made}`
  }
  return { pass, message }
}

function list(calls: readonly ToolCall[]): string {
  const lines = calls.slice(0, SHOWN).map((c) => {
    const state = c.blocked
      ? ' (blocked)'
      : c.isError
        ? ` (failed${c.error ? `: ${c.error.message}` : ''})`
        : ''
    const args =
      c.args === null && c.argsText !== undefined ? c.argsText : cut(JSON.stringify(c.args) ?? 'undefined')
    const server = c.server === undefined ? '' : ` (mcp: ${c.server})`
    return `  step ${c.step}: ${c.name}(${args})${server}${state}`
  })
  if (calls.length > SHOWN) lines.push(`  … and ${calls.length - SHOWN} more`)
  return lines.join('\n')
}

function cut(text: string, max = 200): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`
}
