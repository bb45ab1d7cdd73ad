import { canonicalStringify } from '../../../case/internal/canonical-json.ts'
import type { NormalizedRequest, Part } from '../../../case/schema/normalized.ts'
import type { Severity } from '../../../case/schema/step.ts'
import type { Detector, StepContext } from './detector.ts'
import type { FindingLog, FindingSlot } from './finding-log.ts'
import { newestFrom } from './newest-messages.ts'
import { headQuote } from './quote.ts'
import type { TrackedCall } from './tool-call-tracker.ts'

/**
 * `step_repetition`: the same tool called with the same arguments again and again, and LLM requests
 * that ask the same thing again (same model, system prompt and tool names, and the same newest messages,
 * from the last assistant message on, once call ids are set aside: a retry loop, or an agent feeding the
 * model the same tool result for the same call over and over). Counted over the whole run, one hash-map
 * entry per distinct call or request. A finding opens as `warn` at `threshold` occurrences and turns
 * `critical` at `critical`; later occurrences add their steps to it.
 */

interface Tally {
  count: number
  /** Steps of the occurrences, until a finding holds them. */
  steps: number[]
  slot?: FindingSlot
}

/**
 * Counts occurrences per key and keeps one finding per key up to date. A key seen once is stored as the
 * number of its step, with no object: most calls and requests of a run happen once.
 */
class Repeats {
  private readonly tallies = new Map<string | number, number | Tally>()
  private readonly threshold: number
  private readonly critical: number

  constructor(threshold: number, critical: number) {
    this.threshold = threshold
    this.critical = critical
  }

  hit(
    log: FindingLog,
    key: string | number,
    step: number,
    describe: (count: number) => string,
    evidence: () => string[],
  ): void {
    const seen = this.tallies.get(key)
    if (seen === undefined) {
      this.tallies.set(key, step)
      return
    }
    let tally: Tally
    if (typeof seen === 'number') {
      tally = { count: 1, steps: [seen] }
      this.tallies.set(key, tally)
    } else tally = seen
    tally.count++
    const severity: Severity = tally.count >= this.critical ? 'critical' : 'warn'
    if (tally.slot) {
      log.addStep(tally.slot, step)
      log.escalate(tally.slot, severity, describe(tally.count))
      return
    }
    if (tally.steps[tally.steps.length - 1] !== step) tally.steps.push(step)
    if (tally.count < this.threshold) return
    tally.slot = log.open({
      kind: 'step_repetition',
      severity,
      steps: tally.steps,
      message: describe(tally.count),
      evidence: evidence(),
    })
    tally.steps = []
  }
}

/**
 * @example
 * const detector = stepRepetition({ threshold: 3, critical: 5 })
 */
export function stepRepetition(levels: { threshold: number; critical: number }): Detector {
  const calls = new Repeats(levels.threshold, levels.critical)
  const requests = new Repeats(levels.threshold, levels.critical)
  return {
    onToolCall(call: TrackedCall, ctx: StepContext) {
      calls.hit(
        ctx.log,
        call.key,
        call.step,
        (n) => `${call.name} was called ${n} times with the same arguments`,
        () => [headQuote(call.argsText)],
      )
    },
    onStep(ctx: StepContext) {
      const step = ctx.step
      if (step.type !== 'llm') return
      const request = step.request.normalized
      if (!request) return
      const { key, quote } = requestKey(request)
      requests.hit(
        ctx.log,
        key,
        step.index,
        (n) =>
          `${n} near-identical LLM requests: same model, system prompt and tools, and the same newest messages`,
        () => (quote === undefined ? [] : [headQuote(quote)]),
      )
    },
  }
}

/**
 * What makes two requests near-identical, as a 53-bit digest; and the first text among the newest
 * messages (after the last assistant message), to quote. Call ids are left out (a provider gives each retry's calls new ids), and the system
 * prompt counts by a sketch (its length, start and end): enough to tell one agent's prompt from another's
 * without reading every prompt whole on every call.
 */
function requestKey(request: NormalizedRequest): { key: number; quote: string | undefined } {
  let key = `${request.model}\u0001`
  for (const part of request.system) key += part.type === 'text' ? sketch(part.text) : partKey(part)
  key += '\u0001'
  for (const tool of request.tools) key += `${tool.name},`
  const messages = request.messages
  let quote: string | undefined
  const from = newestFrom(messages)
  // From the last assistant message on: what the model asked for (the calls its results answer) and what
  // came back. Two different calls that both got `{"ok":true}` are not the same request.
  for (let m = Math.max(0, from - 1); m < messages.length; m++) {
    const message = messages[m]!
    key += `\u0001${message.role}`
    for (const part of message.parts) {
      key += `\u0002${partKey(part)}`
      if (quote === undefined && m >= from) {
        if (part.type === 'text' && part.text.length > 0) quote = part.text
        else if (part.type === 'tool_result' && part.content.length > 0) quote = part.content
      }
    }
  }
  // A number keeps the map small (the newest messages may be kilobytes long); two different requests
  // share one with a chance of about n² / 2⁵⁴ in a run of n requests.
  return { key: digest53(key), quote }
}

function sketch(text: string): string {
  return text.length <= 128 ? text : `${text.length}:${text.slice(0, 64)}${text.slice(-64)}`
}

function partKey(part: Part): string {
  switch (part.type) {
    case 'text':
      return `t${part.text}`
    case 'tool_call':
      return `c${part.name}\u0003${part.argsText ?? safeCanonical(part.args)}`
    case 'tool_result':
      return `r${part.isError ? 1 : 0}${part.content}`
    case 'media':
      return `m${part.mediaType}\u0003${part.ref ?? part.sha256 ?? part.bytes}`
    case 'reasoning':
      return `g${part.text}`
  }
}

/**
 * Two FNV-1a lanes over the UTF-16 code units, with different primes, each finished by a multiply-xorshift
 * so that nearby inputs spread; 32 + 21 bits of them make an exact integer.
 */
function digest53(text: string): number {
  let a = 0x811c9dc5
  let b = 0x9e3779b9
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    a = Math.imul(a ^ c, 0x01000193)
    b = Math.imul(b ^ c, 0x5bd1e995)
  }
  a = Math.imul(a ^ (a >>> 15), 0x85ebca6b)
  a ^= a >>> 13
  b = Math.imul(b ^ (b >>> 16), 0xc2b2ae35)
  b ^= b >>> 15
  return (b & 0x1fffff) * 0x100000000 + (a >>> 0)
}

function safeCanonical(value: unknown): string {
  try {
    return canonicalStringify(value)
  } catch {
    return String(value)
  }
}
