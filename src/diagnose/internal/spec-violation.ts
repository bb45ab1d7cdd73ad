import { canonicalStringify } from '../../case/canonical-json.ts'
import type { CheckResult, Run } from '../../case/schema/run.ts'
import type { Finding, Step } from '../../case/schema/step.ts'
import { isFailedToolCall } from '../../checks/failed-tool-call.ts'

type ToolStep = Extract<Step, { type: 'tool' }>

/** A step to blame and a verbatim piece of its text (`stepText`) to quote. */
export interface Culprit {
  step: number
  quote: string
  /** What the step did, for the root cause: `the model call at step 2 called issue_refund`. */
  what: string
}

/** The culprit of a failed check, and how it was found: the action the check names, a cut answer, or the last action. */
export interface SpecCulprit extends Culprit {
  how: 'named' | 'cut' | 'last'
}

/**
 * The model call that chose a tool step: the latest one before it whose response announced the step's
 * call id (or, for a step with no call id, a call of that tool). Null when no model call did (a tool the
 * agent's own code called).
 *
 * @example
 * chooserOf(run, 3) // { step: 2, quote: 'call issue_refund {"order_id":"A17","amount":490}', what: 'the model call at step 2 called issue_refund' }
 */
export function chooserOf(run: Run, toolStep: number): Culprit | null {
  const tool = run.steps[toolStep]
  if (tool?.type !== 'tool') return null
  for (let i = toolStep - 1; i >= 0; i--) {
    const step = run.steps[i]
    if (step?.type !== 'llm') continue
    const call = step.response?.normalized?.toolCalls.find((c) =>
      tool.callId === undefined ? c.name === tool.name : c.id === tool.callId,
    )
    if (call)
      return {
        step: i,
        quote: `call ${call.name} ${JSON.stringify(call.args)}`,
        what: `the model call at step ${i} called ${tool.name}`,
      }
  }
  return null
}

/** A tool call that may have broken a rule: where it ran (or was asked for), and its arguments. */
interface Action {
  /** The tool step, or, for a call no wrapped tool recorded, the model call that asked for it. */
  index: number
  args: unknown
  culprit: () => Culprit
}

/**
 * Rule 5's culprit of a failed check, the decision that broke it:
 *
 * 1. the model call that chose the action the failed checks name: a side-effect tool call that worked
 *    and whose argument values the checks' names and messages mention (`refund of 490 …` names the call
 *    with `amount: 490`; the call naming the most values, the first of equals);
 * 2. else a model call cut at the token limit (`finishReason: 'length'`, what a `length_cutoff` finding
 *    reports) after which no such action happened: the cut answer left the task undone;
 * 3. else the model call that chose the last side-effect call that worked, else the last side-effect
 *    call, else the last tool call.
 *
 * An action no model call chose (a tool the agent's own code called) is blamed on its tool step. In a
 * run with no tool step (its tools were not wrapped), the actions are the tool calls the model calls
 * asked for, side effects unknown. Null when the run has none of these.
 *
 * @example
 * specViolationCulprit(run, failedChecks) // { step: 2, quote: 'call issue_refund {"order_id":"A17","amount":490}', what: '…', how: 'named' }
 */
export function specViolationCulprit(run: Run, failed: readonly CheckResult[]): SpecCulprit | null {
  const tools = run.steps.filter((s): s is ToolStep => s.type === 'tool' && !s.blocked)
  const ran = (s: ToolStep): Action => ({
    index: s.index,
    args: s.args,
    culprit: () => chooserOf(run, s.index) ?? ranTool(s),
  })
  const writes = tools.filter((s) => s.sideEffects)
  const worked = writes.filter((s) => !isFailedToolCall(s)).map(ran)
  const fallback = tools.length > 0 ? (writes.at(-1) ?? tools.at(-1)) : undefined
  const actions = tools.length > 0 ? worked : askedFor(run)
  const said = failed.map((c) => `${c.name} ${c.message ?? ''}`).join('\n')
  let named: Action | undefined
  let most = 0
  for (const action of actions) {
    const count = new Set(values(action.args).filter((v) => mentions(said, v))).size
    if (count > most) [named, most] = [action, count]
  }
  if (named) return { ...named.culprit(), how: 'named' }
  const cut = cutAnswers(run).find((index) => !actions.some((a) => a.index > index))
  if (cut !== undefined) {
    return {
      step: cut,
      quote: 'finish: length',
      what: `the model call at step ${cut} was cut at the token limit and left the task undone`,
      how: 'cut',
    }
  }
  const last = actions.at(-1)
  const action = last?.culprit() ?? (fallback ? ran(fallback).culprit() : null)
  return action ? { ...action, how: 'last' } : null
}

/** The tool calls the model calls asked for, each blamed on its model call (a run with no tool step). */
function askedFor(run: Run): Action[] {
  return run.steps.flatMap((step) =>
    step.type === 'llm'
      ? (step.response?.normalized?.toolCalls ?? []).map((call) => ({
          index: step.index,
          args: call.args,
          culprit: () => ({
            step: step.index,
            quote: `call ${call.name} ${JSON.stringify(call.args)}`,
            what: `the model call at step ${step.index} called ${call.name}`,
          }),
        }))
      : [],
  )
}

/**
 * Whether a repetition is a loop the run never got out of: from its first occurrence on, the run made no
 * tool call other than the repeated one (the same tool with the same arguments), so the task was left
 * undone by the loop, not by another action. A repetition with no tool call (the same request sent
 * again, answered with text) counts too.
 *
 * @example
 * isUnbrokenLoop(run, finding) // true: get_order A17 three times, then "I give up."
 */
export function isUnbrokenLoop(run: Run, finding: Finding): boolean {
  const from = finding.steps[0]
  if (finding.kind !== 'step_repetition' || from === undefined) return false
  const calls = new Set<string>()
  for (const step of run.steps.slice(from)) {
    if (step.type === 'tool' && step.index > from) calls.add(callKey(step.name, step.args))
    if (step.type === 'llm')
      for (const call of step.response?.normalized?.toolCalls ?? []) calls.add(callKey(call.name, call.args))
  }
  return calls.size <= 1
}

/** The model calls whose answer was cut at the token limit, in run order. */
function cutAnswers(run: Run): number[] {
  const cut = new Set<number>()
  for (const step of run.steps)
    if (step.type === 'llm' && step.response?.normalized?.finishReason === 'length') cut.add(step.index)
  // The finding says the same; it also covers a run whose steps were stored without a normalized response.
  for (const f of run.findings) if (f.kind === 'length_cutoff') for (const s of f.steps) cut.add(s)
  return [...cut].sort((a, b) => a - b)
}

function ranTool(step: ToolStep): Culprit {
  return {
    step: step.index,
    quote: JSON.stringify(step.args),
    what: `the tool step ${step.index} ran ${step.name}`,
  }
}

function callKey(name: string, args: unknown): string {
  return `${name}\u0000${canonicalStringify(args)}`
}

/** The scalar values of a tool's arguments worth looking for in a message: numbers and short strings. */
function values(args: unknown): string[] {
  if (typeof args === 'number') return [String(args)]
  if (typeof args === 'string') return args.length >= 2 && args.length <= 40 ? [args] : []
  if (Array.isArray(args)) return args.flatMap(values)
  if (typeof args === 'object' && args !== null) return Object.values(args).flatMap(values)
  return []
}

/** `value` appears in `text` as a whole token (`490` is not found in `4901`, nor in `4.90`). */
function mentions(text: string, value: string): boolean {
  const escaped = value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  return new RegExp(`(?<![\\w.])${escaped}(?![\\w]|\\.\\d)`, 'i').test(text)
}
