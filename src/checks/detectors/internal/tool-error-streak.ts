import { isFailedToolCall } from '../../failed-tool-call.ts'
import type { Detector, StepContext } from './detector.ts'
import type { FindingSlot } from './finding-log.ts'
import { headQuote } from './quote.ts'
import type { TrackedResult } from './tool-call-tracker.ts'

/**
 * `tool_error_streak`: tool results that failed one after the other, in the order the run saw them, of
 * any tool. Failed is `isFailedToolCall` (src/checks/failed-tool-call.ts), the definition `okOnly`
 * uses: the tool threw, the API flagged the result, or it returned an object whose `isError` is true or
 * whose top-level `error` is set. A result that did not fail ends the streak; a blocked call neither
 * fails nor ends it. `warn` at `threshold` failures in a row, `critical` at `critical`; each streak is
 * one finding.
 */

interface Streak {
  count: number
  steps: number[]
  names: string[]
  /** `names` as the message lists them, made again only when a name is added. */
  listed: string
  first: string
  last: string
  /** The quotes of `first` and `last`, made again only when `last` changes. */
  evidence: string[]
  slot?: FindingSlot
}

/**
 * @example
 * const detector = toolErrorStreak({ threshold: 3, critical: 5 })
 */
export function toolErrorStreak(levels: { threshold: number; critical: number }): Detector {
  let streak: Streak | undefined
  return {
    onToolResult(result: TrackedResult, ctx: StepContext) {
      if (result.blocked) return
      if (!failed(result)) {
        streak = undefined
        return
      }
      if (!streak) {
        const text = result.text
        streak = {
          count: 0,
          steps: [],
          names: [],
          listed: '',
          first: text,
          last: text,
          evidence: quotes(text, text),
        }
      }
      streak.count++
      let evidence: string[] | undefined
      if (result.text !== streak.last) {
        streak.last = result.text
        streak.evidence = quotes(streak.first, streak.last)
        evidence = streak.evidence
      }
      if (streak.names.length < 3 && !streak.names.includes(result.call.name)) {
        streak.names.push(result.call.name)
        streak.listed = `${streak.names.join(', ')}${streak.names.length === 3 ? ', ...' : ''}`
      }
      const severity = streak.count >= levels.critical ? 'critical' : 'warn'
      const message = `${streak.count} tool calls failed in a row (${streak.listed})`
      if (streak.slot) {
        ctx.log.addStep(streak.slot, result.step)
        // The quotes are handed over only when they changed: the slot keeps the ones it has.
        ctx.log.escalate(streak.slot, severity, message, evidence)
        return
      }
      if (streak.steps[streak.steps.length - 1] !== result.step) streak.steps.push(result.step)
      if (streak.count < levels.threshold) return
      streak.slot = ctx.log.open({
        kind: 'tool_error_streak',
        severity,
        steps: streak.steps,
        message,
        evidence: streak.evidence,
      })
    },
  }
}

function failed(result: TrackedResult): boolean {
  // `value` is already parsed from JSON text where the result was text.
  return isFailedToolCall({ isError: result.isError, result: result.value })
}

function quotes(first: string, last: string): string[] {
  const a = headQuote(first)
  const b = headQuote(last)
  if (a.length === 0) return b.length === 0 ? [] : [b]
  return a === b || b.length === 0 ? [a] : [a, b]
}
