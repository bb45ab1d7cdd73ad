import { canonicalStringify } from '../../../case/canonical-json.ts'
import type { NormalizedRequest, Part } from '../../../case/schema/normalized.ts'
import type { Severity } from '../../../case/schema/step.ts'
import type { Detector, StepContext } from './detector.ts'
import type { FindingLog, FindingSlot } from './finding-log.ts'
import { newestFrom } from './newest-messages.ts'
import { headQuote } from './quote.ts'
import { callKey, type TrackedCall } from './tool-call-tracker.ts'

/**
 * `step_repetition`: the same tool called with the same arguments again and again, and LLM requests
 * that ask the same thing again (same model, system prompt and tool names, and the same newest messages,
 * from the last assistant message on, once call ids are set aside: a retry loop, or an agent feeding the
 * model the same tool result for the same call over and over). Counted over the whole run, one table
 * entry per distinct call or request. A finding opens as `warn` at `threshold` occurrences and turns
 * `critical` at `critical`; later occurrences add their steps to it.
 */

interface Tally {
  count: number
  /** Steps of the occurrences, until a finding holds them. */
  steps: number[]
  slot?: FindingSlot
}

/** Tells whether a table entry whose digest matches is the key being looked up (a collision check). */
export interface SameKey {
  same(entry: number): boolean
}

/**
 * A set of 64-bit digests (two 32-bit lanes), each given an entry number in the order first seen: open
 * addressing over typed arrays, doubled when half full. It holds no object per key, so the garbage
 * collector has nothing of it to copy or trace however long the run: with a `Map` keyed by the text or a
 * 53-bit number, every distinct call or request of a long run left a key and a map slot for each
 * young-generation collection to copy and promote, a cost per step that grew with the run.
 */
export class DigestTable {
  /** Entry number + 1 per slot; 0 is empty. */
  private slots = new Int32Array(64)
  private lanesA = new Int32Array(32)
  private lanesB = new Int32Array(32)
  /** Entries so far. */
  size = 0
  /** The last `entry` call added the entry. */
  isNew = false

  /**
   * The entry of the digest `(a, b)` that `check` accepts (every digest match when none is given), or
   * a new entry; `isNew` tells which.
   */
  entry(a: number, b: number, check: SameKey | undefined): number {
    const mask = this.slots.length - 1
    let i = (a ^ Math.imul(b, 0x9e3779b1)) & mask
    for (;;) {
      const e = this.slots[i]! - 1
      if (e < 0) break
      if (this.lanesA[e] === a && this.lanesB[e] === b && (check === undefined || check.same(e))) {
        this.isNew = false
        return e
      }
      i = (i + 1) & mask
    }
    const e = this.size++
    if (e === this.lanesA.length) {
      this.lanesA = grown(this.lanesA)
      this.lanesB = grown(this.lanesB)
    }
    this.lanesA[e] = a
    this.lanesB[e] = b
    this.slots[i] = e + 1
    if (this.size * 2 > this.slots.length) this.rehash()
    this.isNew = true
    return e
  }

  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2)
    const mask = slots.length - 1
    for (let e = 0; e < this.size; e++) {
      let i = (this.lanesA[e]! ^ Math.imul(this.lanesB[e]!, 0x9e3779b1)) & mask
      while (slots[i] !== 0) i = (i + 1) & mask
      slots[i] = e + 1
    }
    this.slots = slots
  }
}

function grown(lanes: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const out = new Int32Array(lanes.length * 2)
  out.set(lanes)
  return out
}

/**
 * Counts occurrences per entry and keeps one finding per entry up to date. An entry seen once is only
 * the step of its first occurrence, in a typed array: most calls and requests of a run happen once. The
 * finding's text comes from the subclass, given what was repeated (no closure made per step).
 */
abstract class Repeats<Subject> {
  private firstStep = new Int32Array(32)
  private readonly tallies = new Map<number, Tally>()
  private readonly threshold: number
  private readonly critical: number

  constructor(threshold: number, critical: number) {
    this.threshold = threshold
    this.critical = critical
  }

  hit(log: FindingLog, entry: number, isNew: boolean, step: number, subject: Subject): void {
    if (isNew) {
      while (entry >= this.firstStep.length) this.firstStep = grown(this.firstStep)
      this.firstStep[entry] = step
      return
    }
    let tally = this.tallies.get(entry)
    if (tally === undefined) {
      tally = { count: 1, steps: [this.firstStep[entry]!] }
      this.tallies.set(entry, tally)
    }
    tally.count++
    const severity: Severity = tally.count >= this.critical ? 'critical' : 'warn'
    if (tally.slot) {
      log.addStep(tally.slot, step)
      log.escalate(tally.slot, severity, this.message(tally.count, subject))
      return
    }
    if (tally.steps[tally.steps.length - 1] !== step) tally.steps.push(step)
    if (tally.count < this.threshold) return
    tally.slot = log.open({
      kind: 'step_repetition',
      severity,
      steps: tally.steps,
      message: this.message(tally.count, subject),
      evidence: this.evidence(subject),
    })
    tally.steps = []
  }

  protected abstract message(count: number, subject: Subject): string
  protected abstract evidence(subject: Subject): string[]
}

class CallRepeats extends Repeats<TrackedCall> {
  protected message(count: number, call: TrackedCall): string {
    return `${call.name} was called ${count} times with the same arguments`
  }

  protected evidence(call: TrackedCall): string[] {
    return [headQuote(call.argsText)]
  }
}

/** The subject of a request is the text to quote from it, if any. */
class RequestRepeats extends Repeats<string | undefined> {
  protected message(count: number): string {
    return `${count} near-identical LLM requests: same model, system prompt and tools, and the same newest messages`
  }

  protected evidence(quote: string | undefined): string[] {
    return quote === undefined ? [] : [headQuote(quote)]
  }
}

/**
 * The distinct calls of a run: a digest of the call's key (name and canonical arguments), checked on a
 * digest match against the key itself, so two different calls never count as one. An entry keeps what
 * the run already holds (the call's name and its arguments as the step has them), not a text made for
 * it; its key text is made again the first time another call's digest matches, and kept from then on.
 */
class CallKeys implements SameKey {
  private readonly table = new DigestTable()
  private readonly digest = new Digest()
  /** Per entry: the call's arguments as the step holds them, or its key text once matched. */
  private sources: unknown[] = []
  private names: string[] = []
  private matched = new Uint8Array(32)
  private key = ''

  /** The entry of the call's key; `isNew` tells whether this call added it. */
  entry(call: TrackedCall): number {
    this.key = call.key
    this.digest.reset()
    this.digest.text(call.key)
    const e = this.table.entry(this.digest.laneA(), this.digest.laneB(), this)
    if (this.table.isNew) {
      this.sources[e] = call.argsInvalid ? call.argsText : call.args
      this.names[e] = call.name
    }
    return e
  }

  get isNew(): boolean {
    return this.table.isNew
  }

  same(e: number): boolean {
    while (e >= this.matched.length) this.matched = grown8(this.matched)
    if (this.matched[e] === 0) {
      this.sources[e] = callKey(this.names[e]!, this.sources[e])
      this.matched[e] = 1
    }
    return this.sources[e] === this.key
  }
}

function grown8(flags: Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(flags.length * 2)
  out.set(flags)
  return out
}

/**
 * @example
 * const detector = stepRepetition({ threshold: 3, critical: 5 })
 */
export function stepRepetition(levels: { threshold: number; critical: number }): Detector {
  const calls = new CallRepeats(levels.threshold, levels.critical)
  const callKeys = new CallKeys()
  const requests = new RequestRepeats(levels.threshold, levels.critical)
  const requestKeys = new DigestTable()
  const digest = new Digest()
  const found: Quote = { quote: undefined }
  return {
    onToolCall(call: TrackedCall, ctx: StepContext) {
      const entry = callKeys.entry(call)
      calls.hit(ctx.log, entry, callKeys.isNew, call.step, call)
    },
    onStep(ctx: StepContext) {
      const step = ctx.step
      if (step.type !== 'llm') return
      const request = step.request.normalized
      if (!request) return
      digest.reset()
      digest.text(requestKey(request, found))
      const entry = requestKeys.entry(digest.laneA(), digest.laneB(), undefined)
      requests.hit(ctx.log, entry, requestKeys.isNew, step.index, found.quote)
    },
  }
}

/** Where `requestKey` leaves the text to quote (one holder per detector, not an object per request). */
interface Quote {
  quote: string | undefined
}

/**
 * What makes two requests near-identical, as text (only its 64-bit digest is kept); and, in `found`, the
 * first text among the newest messages (after the last assistant message), to quote. Call ids are left
 * out (a provider gives each retry's calls new ids), and the system prompt counts by a sketch (its
 * length, start and end): enough to tell one agent's prompt from another's without reading every prompt
 * whole on every call. The text is joined and then hashed in one loop: hashing the pieces one by one
 * (no joined text) was measured slower, about 1.7× for this function.
 */
function requestKey(request: NormalizedRequest, found: Quote): string {
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
  found.quote = quote
  // Only its 64-bit digest is kept (the newest messages may be kilobytes long): two different requests
  // share one with a chance of about n² / 2⁶⁵ in a run of n requests.
  return key
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
 * Two FNV-1a lanes over the UTF-16 code units, with different primes and the text's length, each
 * finished by a multiply-xorshift so that nearby inputs spread: a 64-bit digest. One per detector, reset
 * for each key, so that making a digest allocates nothing.
 */
class Digest {
  private a = 0x811c9dc5
  private b = 0x9e3779b9
  private length = 0

  reset(): void {
    this.a = 0x811c9dc5
    this.b = 0x9e3779b9
    this.length = 0
  }

  text(text: string): void {
    let a = this.a
    let b = this.b
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i)
      a = Math.imul(a ^ c, 0x01000193)
      b = Math.imul(b ^ c, 0x5bd1e995)
    }
    this.a = a
    this.b = b
    this.length += text.length
  }

  laneA(): number {
    let a = Math.imul(this.a ^ this.length ^ (this.a >>> 15), 0x85ebca6b)
    a ^= a >>> 13
    return a | 0
  }

  laneB(): number {
    let b = Math.imul(this.b ^ (this.b >>> 16), 0xc2b2ae35)
    b ^= b >>> 15
    return b | 0
  }
}

function safeCanonical(value: unknown): string {
  try {
    return canonicalStringify(value)
  } catch {
    return String(value)
  }
}
