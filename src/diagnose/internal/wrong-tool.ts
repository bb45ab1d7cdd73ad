import { canonicalStringify } from '../../case/canonical-json.ts'
import type { JsonValue } from '../../case/schema/json.ts'
import type { Part, ToolCallPart } from '../../case/schema/normalized.ts'
import type { Diagnosis, Run } from '../../case/schema/run.ts'
import type { Step } from '../../case/schema/step.ts'
import { isFailedToolCall } from '../../checks/failed-tool-call.ts'
import { type EvidenceQuote, verifyEvidence } from '../verify-evidence.ts'
import { coverOf, isChange, keyHit, type Profile, profiles, weights } from './tool-profile.ts'
import { isNegative, isReadVerb, isWriteVerb, stemsOf, wordsOf } from './tool-words.ts'

type LlmStep = Extract<Step, { type: 'llm' }>

/** A tool call that did not fit what was asked, while another tool did. */
export interface WrongTool {
  /** The model call that chose the tool: the culprit step. */
  step: number
  tool: string
  /** The tool that fit what was asked, never called. */
  expected: string
  /**
   * `write`: a change nothing asked for, where another change was asked; `read`: a look-up where a change
   * was asked; `write-for-read`: a change where the user only asked a question; `handoff`: the wrong agent.
   */
  kind: 'write' | 'read' | 'write-for-read' | 'handoff'
  /** What gave a look-up away (`read` only): it read the same again, took the write's arguments, or said so. */
  because?: string
  quotes: EvidenceQuote[]
}

// A sentence that asks for information; `can you`, `could you` usually ask for an action.
const QUESTION = /^\s*(?:what|where|when|which|who|whose|why|how|is|are|was|were|did|does|do|has|have)\b/i

/**
 * The wrong-tool rule of the heuristic: the first model call that chose a tool whose name and description
 * do not fit what the run was asked, while another tool's do. What was asked is read from the user's messages, the
 * system prompt and the failed checks (a check that failed saying something did not happen asks for it);
 * each tool from its name, its description (what it negates left out) and its parameters. Only a run that
 * failed (a check failed or it threw), did not end on a provider failure and had no answer cut at the
 * token limit is judged,
 * and only a choice the run never undid: no model call ever tried the fitting tool, and no other
 * change was attempted after the choice. A change nothing asks for, where another change was asked, is
 * `write`; a look-up where a change was asked, when the look-up repeats one already answered, carries
 * arguments of the change, comes with words that announce the change, or is a second call of its tool
 * after which the model claims the change, is `read`; a change where the
 * user only asked a question is `write-for-read`; a hand-off to an agent the request does not fit,
 * where another agent's description does, is `handoff`. Null when no call qualifies.
 *
 * @example
 * findWrongTool(run) // { step: 2, tool: 'cancel_order', expected: 'issue_refund', kind: 'write', quotes: [...] }
 */
export function findWrongTool(run: Run): WrongTool | null {
  if (run.outcome !== 'fail' && run.status !== 'error') return null
  const llm = run.steps.filter((s): s is LlmStep => s.type === 'llm')
  // A run that ended on a provider failure is the provider's; an answer cut at the token limit, anywhere,
  // is a failure of its own (what the cut answer would have called is unknown).
  if (!llm.at(-1)?.response?.normalized) return null
  if (llm.some((s) => s.response?.normalized?.finishReason === 'length')) return null
  const checks = checkStems(run)
  const calls: ModelCall[] = llm.flatMap((s) =>
    (s.response?.normalized?.toolCalls ?? []).map((call) => ({ step: s, call })),
  )
  const keys = calls.map((c) => `${c.call.name}\u0000${canonicalStringify(c.call.args ?? null)}`)
  const repeats = new Map<string, number>()
  for (const k of keys) repeats.set(k, (repeats.get(k) ?? 0) + 1)
  const tried = new Set(calls.map((c) => c.call.name))
  for (const [i, { step, call }] of calls.entries()) {
    const request = step.request.normalized
    if (!request || request.tools.length < 2) continue
    if ((repeats.get(keys[i] as string) ?? 0) >= 3) continue
    const tools = profiles(request.tools, run)
    const chosen = tools.find((t) => t.name === call.name)
    if (!chosen) continue
    // Another change tried after this call: the model went on, this was not its last word.
    if (calls.slice(i + 1).some((c) => c.call.name !== call.name && isChange(tools, c.call.name))) continue
    const ask = textOf(request.messages.filter((m) => m.role === 'user').flatMap((m) => m.parts))
    const said: Said = {
      user: stemsOf(ask, { asked: true, negation: true }),
      system: stemsOf(textOf(request.system), { asked: true, negation: true }),
      checks: checks.wanted,
      intent: stemsOf(textOf(step.response?.normalized?.parts ?? []), { negation: true }),
    }
    const found = judge({
      run,
      calls,
      step,
      call,
      tools,
      chosen,
      said,
      ask,
      unwanted: checks.unwanted,
      // Tried at any point, even if it failed, the fitting tool was chosen: what followed is not a choice.
      open: tools.filter((t) => !tried.has(t.name) && !calledOk(run, t.name)),
      answer: answerAfter(llm, step),
    })
    if (found) return { step: step.index, tool: call.name, ...found, quotes: evidence(run, step, call) }
  }
  return null
}

/** What each source says it asks for, as stems. */
interface Said {
  user: Set<string>
  system: Set<string>
  checks: Set<string>
  /** What the model said along with the call: it speaks for the tool it meant, never for the one it chose. */
  intent: Set<string>
}

/** A tool call a model call made. */
interface ModelCall {
  step: LlmStep
  call: ToolCallPart
}

interface Choice {
  run: Run
  calls: readonly ModelCall[]
  step: LlmStep
  call: ToolCallPart
  tools: Profile[]
  chosen: Profile
  said: Said
  ask: string
  unwanted: Set<string>
  /** The tools no model call tried and no tool step ran. */
  open: Profile[]
  /** The model's next answer, if it called no tool (the model concluded): what it said, as stems. */
  answer: Set<string> | undefined
}

function judge(c: Choice): Pick<WrongTool, 'expected' | 'kind' | 'because'> | null {
  const { chosen, said } = c
  const weigh = weights(c.tools)
  const cover = (t: Profile, text: ReadonlySet<string>) => coverOf(t, text, weigh)
  const asked = union(said.user, said.system, said.checks)
  const all = union(asked, said.intent)
  // The tool that fit is named by two sources at least (the request, the prompt, a check, the model's words).
  const named = (t: Profile) =>
    [said.user, said.system, said.checks, said.intent].filter((s) => keyHit(t, s)).length >= 2
  // A question that asks for no change, in the words asked for (hedges aside) or, stricter, in any word.
  const wh = c.ask.split(/[.!?\n]+/).some((q) => QUESTION.test(q))
  if (chosen.kind === 'write' || chosen.kind === 'handoff') {
    if (keyHit(chosen, asked)) return null
    const expected = best(
      // A tool whose verb the rule does not know may be the change that was asked.
      c.open.filter(
        (t) => (t.kind === chosen.kind || (t.kind === 'unknown' && chosen.kind === 'write')) && named(t),
      ),
      (t) => cover(t, all),
      cover(chosen, asked) + 1,
    )
    if (expected) return { expected, kind: chosen.kind }
    // A change where the user only asked, which a failed check says should not have happened.
    const words = stemsOf(c.ask)
    const unasked = !([...words].some(isWriteVerb) || keyHit(chosen, words))
    if (chosen.kind !== 'write' || !wh || !unasked || !keyHit(chosen, c.unwanted)) return null
    const info = best(
      c.tools.filter((t) => t.kind === 'read'),
      (t) => cover(t, words),
      0.5,
    )
    return info ? { expected: info, kind: 'write-for-read' } : null
  }
  // A look-up stands in for a change only when the model then answered: one it kept making is a loop.
  if (chosen.kind !== 'read' || !c.answer || (wh && ![...said.user].some(isWriteVerb))) return null
  const expected = c.open.filter((t) => t.kind === 'write' && named(t) && cover(t, all) >= 1)
  for (const t of expected.sort((a, b) => cover(b, all) - cover(a, all))) {
    const because = giveaway(c, t)
    if (because) return { expected: t.name, kind: 'read', because }
  }
  return null
}

/**
 * `WRONG_TOOL_SELECTION` at the model call that chose the tool, quoting the call (and what the model said
 * with it); null when `findWrongTool` finds nothing.
 *
 * @example
 * wrongToolDiagnosis(run)?.label // 'WRONG_TOOL_SELECTION'
 */
export function wrongToolDiagnosis(
  run: Run,
): Pick<Diagnosis, 'label' | 'failingStep' | 'rootCause' | 'evidence'> | null {
  const found = findWrongTool(run)
  if (!found) return null
  const at = `The model call at step ${found.step}`
  const rootCause = {
    write: `${at} called ${found.tool}, which nothing asked for, where ${found.expected} fit what was asked and was never called: the wrong tool.`,
    read: `${at} called ${found.tool}, a look-up, where ${found.expected} was asked for and never called (${found.because}): a read where a write was asked.`,
    'write-for-read': `${at} called ${found.tool}, which changes something, where the user only asked a question (${found.expected} answers it): a write where a read was asked.`,
    handoff: `${at} handed off with ${found.tool}, where the request fits ${found.expected}, which was never called: the wrong agent.`,
  }[found.kind]
  return {
    label: 'WRONG_TOOL_SELECTION',
    failingStep: found.step,
    rootCause,
    evidence: verifyEvidence(run, found.quotes),
  }
}

/** Why a look-up stands where a change was asked, or undefined when nothing gives it away. */
function giveaway(c: Choice, expected: Profile): string | undefined {
  const { run, step, call, chosen } = c
  const before = c.calls.find(
    (e) =>
      e.step.index < step.index &&
      e.call.name === call.name &&
      same(e.call.args, call.args) &&
      ranOk(run, e.call),
  )
  if (before) return `it had read the same at step ${ranAt(run, before.call) ?? before.step.index}`
  const args = call.args && typeof call.args === 'object' && !Array.isArray(call.args) ? call.args : {}
  const foreign = Object.keys(args).filter((k) => !chosen.params.has(k) && expected.params.has(k))
  if (foreign.length > 0 && chosen.params.size > 0) return `with ${expected.name}'s ${foreign.join(', ')}`
  const intent = c.said.intent
  const announced = keyHit(expected, intent) && ![...intent].some((w) => isReadVerb(w) || chosen.words.has(w))
  if (announced) return `its own words announced ${expected.name}`
  // The same look-up had answered already, and the model then said the change was made.
  const again = c.calls.find(
    (e) => e.step.index < step.index && e.call.name === call.name && ranOk(run, e.call),
  )
  const claimed = c.answer && keyHit(expected, c.answer) && ![...c.answer].some(isReadVerb)
  if (!(again && claimed)) return undefined
  const at = ranAt(run, again.call) ?? again.step.index
  return `${call.name} had answered at step ${at}, and the model then claimed the change`
}

/** The name of the best tool by `score`, if it reaches `floor`. */
function best(tools: readonly Profile[], score: (t: Profile) => number, floor: number): string | undefined {
  const ranked = tools.map((t) => ({ t, s: score(t) })).sort((a, b) => b.s - a.s)
  return ranked[0] && ranked[0].s >= floor ? ranked[0].t.name : undefined
}

/**
 * What the failed checks ask for: a check that failed saying something did not happen (`no refund was
 * issued`, a check named `passenger-rebooked`) asks for it; one that says something happened (`a booking
 * was cancelled`, `booking-not-cancelled`) says it was not wanted.
 */
function checkStems(run: Run): { wanted: Set<string>; unwanted: Set<string> } {
  const wanted = new Set<string>()
  const unwanted = new Set<string>()
  for (const check of run.checks.filter((c) => !c.passed)) {
    const name = wordsOf(check.name).join(' ')
    for (const s of stemsOf(name)) (isNegative(name) ? unwanted : wanted).add(s)
    if (check.message)
      for (const s of stemsOf(check.message)) (isNegative(check.message) ? wanted : unwanted).add(s)
  }
  return { wanted, unwanted }
}

/** What the next model call after `step` that got an answer said, when it called no tool (it concluded). */
function answerAfter(llm: readonly LlmStep[], step: LlmStep): Set<string> | undefined {
  const next = llm.find((s) => s.index > step.index && s.response?.normalized)?.response?.normalized
  return next?.toolCalls.length === 0 ? stemsOf(textOf(next.parts), { negation: true }) : undefined
}

/** Whether a tool step of the tool (one the agent's own code may have called) ran without failing. */
function calledOk(run: Run, name: string): boolean {
  return run.steps.some((s) => s.type === 'tool' && s.name === name && !s.blocked && !isFailedToolCall(s))
}

/** Whether the tool step that ran a model's call did not fail; true when no tool step recorded it. */
function ranOk(run: Run, call: ToolCallPart): boolean {
  const ran = run.steps[ranAt(run, call) ?? -1]
  return ran?.type !== 'tool' || (!ran.blocked && !isFailedToolCall(ran))
}

/** The tool step that ran a model's call, by its call id, or by name and arguments when it has none. */
function ranAt(run: Run, call: ToolCallPart): number | undefined {
  return run.steps.find(
    (s) =>
      s.type === 'tool' &&
      (s.callId ? s.callId === call.id : s.name === call.name && same(s.args, call.args)),
  )?.index
}

function evidence(run: Run, step: LlmStep, call: ToolCallPart): EvidenceQuote[] {
  const said = step.response?.normalized?.parts.find((p) => p.type === 'text' && p.text.trim())
  const quotes = [{ step: step.index, quote: `call ${call.name} ${JSON.stringify(call.args)}` }]
  if (said?.type === 'text') quotes.push({ step: step.index, quote: `assistant: ${said.text.slice(0, 120)}` })
  return verifyEvidence(run, quotes)
}

function textOf(parts: readonly Part[]): string {
  return parts
    .filter((p) => p.type === 'text')
    .map((p) => (p.type === 'text' ? p.text : ''))
    .join('\n')
}

function same(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return canonicalStringify(a ?? null) === canonicalStringify(b ?? null)
}

function union(...sets: ReadonlySet<string>[]): Set<string> {
  return new Set(sets.flatMap((s) => [...s]))
}
