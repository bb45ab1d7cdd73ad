import { canonicalStringify } from '../case/canonical-json.ts'
import type { JsonValue } from '../case/schema/json.ts'
import type { StepError, ToolStep } from '../case/schema/step.ts'
import { CrashlabError } from '../errors.ts'
import { redactDocument } from '../redact/redact-document.ts'
import { currentSession } from './context.ts'
import { splitFrameworkContext } from './internal/framework-context.ts'
import { peekRecordedTool, takeRecordedTool, toolDivergence } from './internal/match-tool.ts'
import type { Session } from './session.ts'
import { fromStepError, toJsonValue, toStepError } from './values.ts'

/**
 * How `tool()` records and replays a tool.
 *
 * @example
 * const options: ToolOptions = { name: 'get_order', sideEffects: false, replay: 'live' }
 */
export interface ToolOptions {
  /** The tool's name, as the model calls it. */
  name: string
  /** True when running it changes the world (refunds, e-mails, writes): it never runs at replay. */
  sideEffects: boolean
  /**
   * `'live'` runs a pure tool for real at replay too (its call is still matched against the recording):
   * for a cheap deterministic tool whose code you want exercised. Not allowed with `sideEffects`.
   */
  replay?: 'live'
  /**
   * Which of a call's arguments are the tool's arguments, recorded and matched at replay:
   *
   * - `'auto'` (the default): all of them up to the first context object an agent framework passes
   *   after the input (the AI SDK's `{ toolCallId, messages, ... }`, LangChain's `RunnableConfig`, the
   *   Agents SDK's `RunContext` and details, Mastra's tool context), recognised by their shape;
   * - `'first'`: the first argument only, whatever follows it (a framework whose context is not
   *   recognised);
   * - `'all'`: every argument (a tool of your own whose later argument looks like a framework context).
   *
   * One argument is stored as itself, several as an array.
   */
  args?: 'auto' | 'first' | 'all'
}

/**
 * Wraps a tool function so that, inside a Session, each call becomes a `tool` step: its arguments, its
 * result or the error it threw (as data), whether it has side effects, and how long it took. At
 * replay it returns the recorded result (or throws an Error rebuilt from the recorded one) and never
 * runs `fn`; a call with other arguments, or another tool at that point, is a divergence (in a replay
 * with `onDivergence: 'record'`, it switches the Session to record and runs `fn`). Outside a Session it
 * is `fn`. One argument is stored as itself, several as an array; a context object that an agent
 * framework passes after the input (AI SDK, LangChain, OpenAI Agents SDK, Mastra) is not an argument
 * (see `ToolOptions.args`), and the model's tool-call id it carries is the step's `callId`, which links
 * the step to the model's call. `fn` always gets every argument. Once the Session is halted
 * (`session.halt(error)`), a call throws that error and neither runs `fn` nor records anything.
 *
 * @example
 * const issueRefund = tool(async ({ orderId, amount }) => payments.refund(orderId, amount), {
 *   name: 'issue_refund',
 *   sideEffects: true,
 * })
 * await issueRefund({ orderId: 'A17', amount: 49 }) // recorded; at replay, the payment API is never called
 */
export function tool<F extends (...args: never[]) => unknown>(fn: F, options: ToolOptions): F {
  if (options.replay === 'live' && options.sideEffects) {
    throw new TypeError(
      `[crashlab] tool "${options.name}" has side effects, so it cannot run live at replay: drop \`replay: 'live'\`.`,
    )
  }
  if (options.args !== undefined && !['auto', 'first', 'all'].includes(options.args)) {
    throw new TypeError(
      `[crashlab] tool "${options.name}" has \`args: ${JSON.stringify(options.args)}\`: use 'auto' (the default), 'first' or 'all'.`,
    )
  }
  // An `async` function's callers may chain `.then()`: its replayed result is a promise too.
  const isAsync = fn.constructor?.name === 'AsyncFunction'
  const wrapped = function (this: unknown, ...args: Parameters<F>): unknown {
    const session = currentSession()
    if (!session || session.mode === 'passthrough') return fn.apply(this, args)
    const halted = session.halted
    if (halted) {
      // A halted run runs no more tools, at record as at replay: the call throws the halt itself.
      if (isAsync) return Promise.reject(halted)
      throw halted
    }
    const call = recordedCall(args, options.args ?? 'auto')
    const argsJson = call.args
    // A fork goes live at its fork step: from there the Session records.
    session.forkIfDue()
    if (session.mode === 'record') {
      if (session.forkAt !== undefined)
        return forkedCall(session, options, call, isAsync, () => fn.apply(this, args))
      return runAndRecord(session, options, call, () => fn.apply(this, args))
    }

    const target = session.inject?.tool && peekRecordedTool(session, options.name, argsJson)
    const injection = target && session.takeInjection(target.index)
    if (target && injection?.tool)
      return injectedCall(session, options, call, isAsync, injection.tool(target))
    const recorded = takeRecordedTool(session, options.name, argsJson)
    if (!recorded) {
      const divergence = toolDivergence(session, options.name, argsJson)
      // A replay that records from its first divergence on runs the tool, as a recording does.
      if (session.recordFrom(divergence))
        return runAndRecord(session, options, call, () => fn.apply(this, args))
      session.fail(divergence)
      if (isAsync) return Promise.reject(divergence)
      throw divergence
    }
    if (options.replay === 'live') {
      const keep = session.onDivergence === 'record' ? recorded : undefined
      return runAndRecord(session, options, call, () => fn.apply(this, args), keep)
    }
    // Keeping the recording's prefix (`onDivergence: 'record'`), the step is the recorded one as stored.
    session.addStep(
      session.onDivergence === 'record' ? { ...recorded } : { ...recorded, args: argsJson, ...linkOf(call) },
    )
    if (recorded.result === undefined && recorded.error) {
      const error = fromStepError(recorded.error)
      if (isAsync) return Promise.reject(error)
      throw error
    }
    return isAsync ? Promise.resolve(recorded.result) : recorded.result
  }
  Object.defineProperty(wrapped, 'name', { value: fn.name })
  return wrapped as unknown as F
}

/**
 * Runs the tool and adds its step. With `keep` (a recorded step a run keeping the recording's prefix
 * matched), the recorded step is added instead when the tool gave the same result or error; a different
 * one is the run's divergence, from which it records.
 */
function runAndRecord(
  session: Session,
  options: ToolOptions,
  call: RecordedCall,
  run: () => unknown,
  keep?: ToolStep,
): unknown {
  const startedAt = new Date().toISOString()
  const t0 = performance.now()
  const add = (result: { value: unknown } | { error: StepError }) => {
    const step = toolStep(
      options,
      call,
      { startedAt, durationMs: Math.round(performance.now() - t0) },
      result,
    )
    if (keep && session.mode === 'replay') {
      if (outcomeOf(session, step) === outcomeOf(session, keep)) return void session.addStep({ ...keep })
      const changed = new CrashlabError(
        'E_DIVERGENCE',
        `${session.where}: tool ${options.name} (replay: 'live') returned another result than recorded step ${keep.index}.`,
        { subject: session.cassettePath },
      )
      // A fork's prefix is replayed strictly: there, a different result fails the run.
      if (!session.recordFrom(changed)) session.fail(changed)
    }
    session.addStep(step)
  }
  let out: unknown
  try {
    out = run()
  } catch (error) {
    add({ error: toStepError(error) })
    throw error
  }
  if (isThenable(out)) {
    return Promise.resolve(out).then(
      (value) => {
        add({ value })
        return value
      },
      (error: unknown) => {
        add({ error: toStepError(error) })
        throw error
      },
    )
  }
  add({ value: out })
  return out
}

/**
 * A tool call of a fork past its fork step: a call equal to an unused recorded call of the parent gets its
 * recorded result (the tool does not run); any other call of a side-effect tool is blocked (not run, a
 * `blocked` step, `E_FORK_BLOCKED` thrown to the agent); a pure tool runs live.
 */
function forkedCall(
  session: Session,
  options: ToolOptions,
  call: RecordedCall,
  isAsync: boolean,
  run: () => unknown,
): unknown {
  const recorded = takeRecordedTool(session, options.name, call.args)
  if (recorded) {
    session.addStep({ ...recorded })
    if (recorded.result === undefined && recorded.error) {
      const error = fromStepError(recorded.error)
      if (isAsync) return Promise.reject(error)
      throw error
    }
    return isAsync ? Promise.resolve(recorded.result) : recorded.result
  }
  if (!options.sideEffects) return runAndRecord(session, options, call, run)
  const error = new CrashlabError(
    'E_FORK_BLOCKED',
    `${session.where}: tool ${options.name} has side effects and was called with arguments its parent run never ` +
      'used, so the fork did not run it: a fork never runs a side-effect tool live.',
    { subject: options.name },
  )
  session.addStep({
    type: 'tool',
    name: options.name,
    ...linkOf(call),
    args: call.args,
    sideEffects: true,
    blocked: true,
    timing: { startedAt: new Date().toISOString(), durationMs: 0 },
    error: { name: error.name, message: error.message, code: error.code },
  })
  if (isAsync) return Promise.reject(error)
  throw error
}

/**
 * A crash test's fault at a tool call: the tool does not run; its step records the fault's error or
 * result, and the recorded step stays unused for a retry.
 */
function injectedCall(
  session: Session,
  options: ToolOptions,
  call: RecordedCall,
  isAsync: boolean,
  outcome: { throws: Error } | { result: unknown },
): unknown {
  const result = 'throws' in outcome ? { error: toStepError(outcome.throws) } : { value: outcome.result }
  session.addStep(toolStep(options, call, { startedAt: new Date().toISOString(), durationMs: 0 }, result))
  if ('throws' in outcome) {
    if (isAsync) return Promise.reject(outcome.throws)
    throw outcome.throws
  }
  return isAsync ? Promise.resolve(outcome.result) : outcome.result
}

/** A tool call's step: its arguments, and the value it returned or the error it threw. */
function toolStep(
  options: ToolOptions,
  call: RecordedCall,
  timing: ToolStep['timing'],
  result: { value: unknown } | { error: StepError },
): Omit<ToolStep, 'index'> {
  const step: Omit<ToolStep, 'index'> = {
    type: 'tool',
    name: options.name,
    ...linkOf(call),
    args: call.args,
    sideEffects: options.sideEffects,
    timing,
    error: 'error' in result ? result.error : null,
  }
  if ('value' in result) step.result = toJsonValue(result.value)
  return step
}

/** A call's recorded arguments (the match key at replay), and the model's tool-call id when known. */
interface RecordedCall {
  args: JsonValue
  callId?: string
}

/** The arguments to record, per `ToolOptions.args`; a framework context's tool-call id in every mode. */
function recordedCall(args: unknown[], mode: 'auto' | 'first' | 'all'): RecordedCall {
  const split = splitFrameworkContext(args)
  const kept = mode === 'all' ? args : mode === 'first' ? args.slice(0, 1) : split.args
  const out: RecordedCall = { args: toJsonValue(kept.length === 1 ? kept[0] : kept) }
  if (split.callId !== undefined) out.callId = split.callId
  return out
}

/** The step's `callId`, when the call carried one. */
function linkOf(call: RecordedCall): { callId?: string } {
  return call.callId === undefined ? {} : { callId: call.callId }
}

/** A tool step's result or error, redacted as the cassette holds it, for comparing a live run with it. */
function outcomeOf(session: Session, step: Pick<ToolStep, 'result' | 'error'>): string {
  const outcome = { result: step.result ?? null, error: step.error }
  return canonicalStringify(redactDocument(outcome, { redactor: session.redactor }).value)
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function'
}
