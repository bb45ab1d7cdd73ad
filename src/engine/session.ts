import { createRun } from '../case/create-run.ts'
import type { JsonValue } from '../case/schema/json.ts'
import type { Run } from '../case/schema/run.ts'
import type { Step } from '../case/schema/step.ts'
import { CrashlabError } from '../errors.ts'
import type { Redactor } from '../redact/types.ts'
import { isSemanticRun } from './internal/semantic-run.ts'
import type { FaultInjection, MatchingOptions, McpOptions, SessionHooks, SessionMode } from './types.ts'
import { captureError, RERECORD_COMMAND, toJsonValue, toStepError } from './values.ts'

/**
 * A step before it joins the run: the Session numbers it.
 *
 * @example
 * session.addStep({ type: 'tool', name: 'get_order', args: {}, result: null, sideEffects: false, timing, error: null } satisfies NewStep)
 */
export type NewStep = Step extends infer S ? (S extends Step ? Omit<S, 'index'> : never) : never

/**
 * How to start a Session.
 *
 * @example
 * const options: SessionOptions = { mode: 'replay', recorded: loadCassette(path).run, cassettePath: path, label: 'refund' }
 */
export interface SessionOptions {
  mode: SessionMode
  /** The run's name (the agent). Default: the recorded run's name, else `run`. */
  name?: string
  input?: JsonValue
  /** What the run is, for messages: the test's full name. */
  label?: string
  /** The cassette the run replays from or records to, for messages. */
  cassettePath?: string
  /** The run to replay (a loaded cassette's `run`); required in `replay` mode. */
  recorded?: Run
  hooks?: SessionHooks
  /** Replays streamed events at their recorded times instead of at once. Default false. */
  replayTiming?: boolean
  /** Lets a replay end with recorded model or tool steps left unused. Default false. */
  allowUnused?: boolean
  /**
   * What a replay does at its first model, http or `tool()` call that matches no unused recorded step:
   * `fail` (the default) keeps a `DivergenceError` for `finish()`; `record` switches the Session to
   * `record` from that call on (the call goes live, tools run, new steps follow the replayed ones), so
   * that the run keeps the recording's verified prefix and re-records only what changed. See
   * `divergedAt`. The record mode `diverged` opens its replays with `record` (src/record-modes).
   */
  onDivergence?: 'fail' | 'record'
  /**
   * Forks the recorded run at this step index (with `mode: 'replay'` and `recorded`; implies
   * `onDivergence: 'record'`): steps before it are replayed strictly (a divergence there fails as in a
   * replay), and the first call at this index switches the Session to `record`, even one the recording
   * would answer. After the switch, a `tool()` call equal to an unused recorded tool call gets its
   * recorded result, and any other call of a side-effect tool is blocked (`E_FORK_BLOCKED`); an MCP
   * `tools/call` likewise, its side effects from `mcp` or the server's annotations. The run is
   * a new one, linked by `links.forkedFrom` and `links.forkStep`. In Vitest, the fork policy
   * (src/record-modes) sets it for the test `crashlab fork` targets.
   */
  forkAt?: number
  /**
   * A fault in place of one recorded step's answer (with `mode: 'replay'`): see `FaultInjection`. The
   * run is linked to the recorded one by `links.crashOf`, with the step and the fault's `label`.
   */
  inject?: FaultInjection & { label?: JsonValue }
  /** The redaction rules the request hash is taken under; the default redactor when omitted. */
  redactor?: Redactor
  /**
   * Extra matching rules: params left out of the request hash (and of an http call's JSON body) and
   * normalizers run on model requests before it. With them, a replay hashes each recorded call again
   * under the same rules, so rules added after the recording apply to it too.
   */
  matching?: MatchingOptions
  /**
   * MCP servers' settings (the config file's `mcp` key): which tools have side effects, over what their
   * annotations say. A recording writes it into each MCP tool step's `sideEffects`; a fork blocks such a
   * call past its fork step unless the parent run holds the same call.
   */
  mcp?: McpOptions
  /** Receives what cannot be thrown (crashlab errors when the agent's own error wins). Default: process.emitWarning. */
  onWarning?: (message: string) => void
  /** How long `finish()` waits for streams still being recorded before it keeps them as incomplete. Default 2000 ms. */
  settleMs?: number
}

/** A recording in flight: a stream the caller is still reading. */
interface Pending {
  done: Promise<void>
  /** Appends what arrived so far as an incomplete step; a later end does nothing. */
  flush(): void
}

/**
 * One agent run under crashlab: its mode, the Run being built, for a replay the recorded Run and which of
 * its steps were used, the hooks, and the crashlab errors raised on the way. Errors are kept here instead
 * of reaching the agent, which could swallow or retry them; `finish()` throws them when the run ends.
 *
 * @example
 * const session = new Session({ mode: 'replay', recorded: loadCassette(path).run, cassettePath: path })
 * const output = await runInSession(session, () => agent(input))
 * const run = await session.finish({ output })  // throws a divergence even if the agent caught it
 */
export class Session {
  readonly run: Run
  readonly recorded: Run | null
  readonly hooks: SessionHooks
  readonly replayTiming: boolean
  readonly allowUnused: boolean
  readonly onDivergence: 'fail' | 'record'
  readonly redactor: Redactor | undefined
  readonly matching: MatchingOptions | undefined
  /** The MCP settings (`SessionOptions.mcp`). */
  readonly mcp: McpOptions | undefined
  readonly label: string | undefined
  readonly cassettePath: string | undefined
  /** The step a fork goes live from (`SessionOptions.forkAt`), or undefined for any other Session. */
  readonly forkAt: number | undefined
  /** The fault this replay puts in place of a recorded step's answer (`SessionOptions.inject`). */
  readonly inject: FaultInjection | undefined
  /** The index in this run of the step that got the fault; undefined until the fault is injected. */
  injectedAt: number | undefined
  /** crashlab's own errors raised during the run, in order. */
  readonly errors: CrashlabError[] = []
  private readonly consumed = new Set<number>()
  /** Below this index every recorded step is consumed: where a lookup of unused steps starts. */
  private firstUnused = 0
  private haltedBy: CrashlabError | undefined
  private currentMode: SessionMode
  private divergedStep: number | undefined
  private divergedBy: CrashlabError | undefined
  private readonly pending = new Set<Pending>()
  private readonly onWarning: (message: string) => void
  private readonly settleMs: number
  private finished = false

  constructor(options: SessionOptions) {
    if (options.mode === 'replay' && !options.recorded) {
      throw new CrashlabError(
        'E_REPLAY_MISSING',
        `${where(options.label, options.cassettePath)} is in replay mode but has no recorded run to replay: ` +
          `load its cassette first, or record it with \`${RERECORD_COMMAND}\`.`,
        { subject: options.cassettePath ?? options.label },
      )
    }
    this.currentMode = options.mode
    this.recorded = options.recorded ?? null
    this.forkAt = options.mode === 'replay' && this.recorded ? options.forkAt : undefined
    this.onDivergence =
      options.mode === 'replay'
        ? this.forkAt !== undefined
          ? 'record'
          : (options.onDivergence ?? 'fail')
        : 'fail'
    this.run = createRun({
      name: options.name ?? this.recorded?.name ?? 'run',
      input: options.input ?? this.recorded?.input ?? null,
    })
    if (this.recorded && this.forkAt !== undefined) {
      // A fork is a new run, linked to the one it forks.
      this.run.links = { forkedFrom: this.recorded.id, forkStep: this.forkAt }
    } else if (this.recorded && this.onDivergence === 'record') {
      // The run continues the recording rather than replaying it: same id, start and links, so that a
      // cassette written again differs from the old one only where the run did.
      this.run.id = this.recorded.id
      this.run.startedAt = this.recorded.startedAt
      this.run.links = { ...this.recorded.links }
    } else if (this.recorded && options.mode === 'replay') {
      this.run.links.replayOf = this.recorded.id
    }
    this.inject = options.mode === 'replay' && this.recorded ? options.inject : undefined
    if (this.recorded && this.inject) {
      const { atStep } = this.inject
      const fault = options.inject?.label
      this.run.links.crashOf = {
        run: this.recorded.id,
        step: atStep,
        ...(fault === undefined ? {} : { fault }),
      }
    }
    this.hooks = options.hooks ?? {}
    this.replayTiming = options.replayTiming ?? false
    this.allowUnused = options.allowUnused ?? false
    this.redactor = options.redactor
    this.matching = hasRules(options.matching) ? options.matching : undefined
    this.mcp = options.mcp
    this.label = options.label
    this.cassettePath = options.cassettePath
    this.onWarning = options.onWarning ?? ((m) => process.emitWarning(m, { code: 'CRASHLAB_SESSION' }))
    this.settleMs = options.settleMs ?? 2000
  }

  /**
   * How the Session treats calls now: the mode it was created with, except that a replay with
   * `onDivergence: 'record'` is `record` from its first divergence on.
   *
   * @example
   * if (session.mode === 'replay') console.log('served from', session.cassettePath)
   */
  get mode(): SessionMode {
    return this.currentMode
  }

  /**
   * For a replay with `onDivergence: 'record'`: the index of the first step that is not the recording's
   * (the run was recorded live from there, or it ended there with recorded model or tool steps left
   * unused), or undefined while the run follows the recording. Steps before it are the recorded steps
   * themselves; when it is undefined after `finish()`, the run is the recording and nothing needs
   * writing.
   *
   * @example
   * const run = await session.finish({ output })
   * if (session.divergedAt !== undefined) writeCassette(path, run)
   */
  get divergedAt(): number | undefined {
    return this.divergedStep
  }

  /**
   * Why `divergedAt` is set: the `DivergenceError` of the call that left the recording, or an
   * `E_REPLAY_UNUSED` error when the run ended short of it. Kept for messages, never thrown.
   *
   * @example
   * if (session.divergence) console.log(session.divergence.message)
   */
  get divergence(): CrashlabError | undefined {
    return this.divergedBy
  }

  /**
   * Called by the engine when a replayed call matches nothing. With `onDivergence: 'record'` the Session
   * switches to `record` for the rest of the run, remembers `reason` (see `divergedAt`), and returns
   * true: the caller serves the call live. Otherwise it returns false and changes nothing: the caller
   * fails the call as a replay does.
   *
   * @example
   * if (!session.recordFrom(divergence)) session.fail(divergence)
   */
  recordFrom(reason: CrashlabError): boolean {
    if (this.onDivergence !== 'record' || this.finished) return false
    // A fork replays its steps before the fork step strictly: a divergence there fails.
    if (this.currentMode === 'replay' && this.forkAt !== undefined && this.run.steps.length < this.forkAt)
      return false
    if (this.currentMode === 'replay') {
      this.currentMode = 'record'
      this.divergedStep = this.run.steps.length
      this.divergedBy = reason
    }
    return true
  }

  /**
   * For a fork (`forkAt`): switches the Session to `record` when the next step is the fork step or
   * later, so that the call about to be made goes live even if the recording would answer it. The
   * engine calls it before each model, http or `tool()` call; it does nothing for other Sessions.
   *
   * @example
   * session.forkIfDue()
   * if (session.mode === 'record') console.log('live from step', session.divergedAt)
   */
  forkIfDue(): void {
    const at = this.forkAt
    if (at === undefined || this.currentMode !== 'replay' || this.run.steps.length < at) return
    this.recordFrom(
      new CrashlabError(
        'E_DIVERGENCE',
        `${this.where}: fork of run ${this.recorded?.id} at step ${at}: live from here on.`,
        { subject: this.cassettePath },
      ),
    )
  }

  /**
   * The fault to put in place of recorded step `index`'s answer, once: the Session's injection when it
   * targets that step and has not been used yet (it is marked used), else undefined.
   *
   * @example
   * const injection = session.takeInjection(recorded.index)
   */
  takeInjection(index: number): FaultInjection | undefined {
    const inject = this.inject
    if (!inject || this.injectedAt !== undefined || inject.atStep !== index) return undefined
    this.injectedAt = this.run.steps.length
    return inject
  }

  /** The run named for messages: test name and cassette path, when known. */
  get where(): string {
    return where(this.label, this.cassettePath)
  }

  /** Recorded steps not served yet, in recorded order. */
  unconsumed(): Step[] {
    const out: Step[] = []
    this.findUnconsumed((step) => {
      out.push(step)
      return false
    })
    return out
  }

  /**
   * The first recorded step not served yet for which `test` is true, in recorded order, without
   * copying the list: a replay looks one up on every call, and an agent's calls mostly consume the
   * recording in order, so the lookup starts past the steps already served.
   *
   * @example
   * const next = session.findUnconsumed((s) => s.type === 'tool' && s.name === 'get_order')
   */
  findUnconsumed(test: (step: Step) => boolean): Step | undefined {
    const steps = this.recorded?.steps
    if (!steps) return undefined
    for (let i = this.firstUnused; i < steps.length; i++) {
      const step = steps[i]!
      if (!this.consumed.has(step.index) && test(step)) return step
    }
    return undefined
  }

  /** Marks a recorded step as served; false when it already was. */
  consume(index: number): boolean {
    if (this.consumed.has(index)) return false
    this.consumed.add(index)
    const steps = this.recorded?.steps
    if (steps)
      while (this.firstUnused < steps.length && this.consumed.has(steps[this.firstUnused]!.index))
        this.firstUnused++
    return true
  }

  /** Appends a finished step: numbers it, adds its usage to the run's totals, and calls `onStep`. */
  addStep(step: NewStep): Step {
    const full = { ...step, index: this.run.steps.length } as Step
    this.run.steps.push(full)
    const usage = this.run.usage
    if (full.type === 'llm') {
      usage.llmCalls++
      const u = full.response?.normalized?.usage
      if (u) {
        usage.inputTokens += u.inputTokens
        usage.outputTokens += u.outputTokens
        usage.cachedTokens += u.cachedTokens ?? 0
        usage.reasoningTokens += u.reasoningTokens ?? 0
      }
    } else if (full.type === 'tool') {
      usage.toolCalls++
    }
    try {
      this.hooks.onStep?.(full, this)
    } catch (cause) {
      this.fail(captureError(`the onStep hook threw on step ${full.index}`, cause))
    }
    return full
  }

  /** Keeps a crashlab error for the end of the run; the first one is what `finish()` throws. */
  fail(error: CrashlabError): void {
    this.errors.push(error)
  }

  /**
   * Stops the run: keeps `error` on the Session (as `fail` does) and, from then on, fails every model
   * or http call of the Session the way a divergence does (a network error whose cause is `error`; the
   * call reaches neither the provider nor the recording) and makes every `tool()` call throw `error`
   * without running the tool. `finish()` then throws it, ahead of any other error of the run (with the
   * agent's error as its `cause` when the agent threw), and a halted replay is not failed for the
   * recorded steps it left unused. It works alike in record and replay, so that a replay stops where the
   * recording stopped; a `passthrough` Session is not stopped (crashlab stays out of its calls). The
   * first halt wins; a later one is only kept as an error.
   *
   * @example
   * const hooks: SessionHooks = {
   *   onStep: (step, session) => {
   *     if (step.index >= 50) session.halt(new CrashlabError('E_CIRCUIT_OPEN', 'the run took more than 50 steps'))
   *   },
   * }
   */
  halt(error: CrashlabError): void {
    this.haltedBy ??= error
    if (!this.errors.includes(error)) this.fail(error)
  }

  /**
   * The error the run was halted with (`halt`), or undefined while it runs.
   *
   * @example
   * if (session.halted) console.log(session.halted.code) // 'E_CIRCUIT_OPEN'
   */
  get halted(): CrashlabError | undefined {
    return this.haltedBy
  }

  /** Registers a recording in flight, so that `finish()` waits for it. */
  track(pending: Pending): void {
    this.pending.add(pending)
    void pending.done.finally(() => this.pending.delete(pending))
  }

  /**
   * Ends the run. With `output` (the agent returned): status `ok`; then a replay that left recorded
   * model or tool steps unused fails (`E_REPLAY_UNUSED`, unless `allowUnused` or the run was halted),
   * and the error the run was halted with, else the first crashlab error of the run, is thrown, even one
   * the agent caught. With `error` (the agent threw): status `error`; when the run was halted, or also
   * failed its replay (a divergence, a blocked call, unused steps), that failure is thrown, with the
   * agent's error as its `cause`, since crashlab answered the agent with a network error and the
   * agent's error follows from it; otherwise finish does not throw and the caller
   * rethrows the agent's error unchanged (a capture failure, `E_CAPTURE`, never replaces it).
   *
   * @example
   * try {
   *   const output = await runInSession(session, () => agent(input))
   *   await session.finish({ output })
   * } catch (error) {
   *   if (!session.isFinished) await session.finish({ error })
   *   throw error
   * }
   */
  async finish(result: { output?: unknown; error?: unknown } = {}): Promise<Run> {
    if (this.finished) return this.run
    this.finished = true
    await this.settle()
    const failed = 'error' in result && result.error !== undefined
    this.run.endedAt = new Date().toISOString()
    this.run.status = failed ? 'error' : 'ok'
    this.run.output = failed ? null : toJsonValue(result.output)
    this.run.error = failed ? toStepError(result.error) : null
    // A halted run stopped on purpose: the recorded steps after the halt are unused by design.
    if (this.mode === 'replay' && !this.haltedBy && (this.onDivergence === 'record' || !this.allowUnused)) {
      // A run imported from a trace lists the tools the agent ran itself: a replay runs them again (or
      // serves the ones it wraps), so only its model steps must all be used.
      const imported = isSemanticRun(this.recorded)
      const unused = this.unconsumed().filter((s) => s.type === 'llm' || (s.type === 'tool' && !imported))
      if (unused.length > 0) {
        // Model steps a trace did not capture could never be matched: that is what to say, not "does less".
        const incomplete =
          imported && (await import('./internal/semantic-replay.ts')).unusedIncomplete(this, unused)
        const error = incomplete || unusedError(this.where, unused, this.cassettePath)
        // The agent now stops earlier: a re-recording keeps what it did and drops the rest.
        if (this.onDivergence === 'record') {
          this.divergedStep = this.run.steps.length
          this.divergedBy = error
        } else this.fail(error)
      }
    }
    const first = this.haltedBy ?? this.errors[0]
    if (failed) {
      // A replay failure (a divergence, a blocked call, steps left unused) was answered to the agent as a
      // network error, so the agent's error most likely follows from it: the replay failure is what the
      // run reports, with the agent's error as its cause. A failure of the capture itself (E_CAPTURE)
      // never replaces the agent's error.
      const replayFailure = this.haltedBy ?? this.errors.find((e) => e.code !== 'E_CAPTURE')
      for (const e of this.errors) {
        if (e !== replayFailure) this.onWarning(`${e.message} (the run failed with another error)`)
      }
      if (replayFailure) {
        // A halted tool throws the halt itself, which the agent may rethrow as is: no cause of itself.
        if (replayFailure.cause === undefined && result.error !== replayFailure)
          Object.defineProperty(replayFailure, 'cause', { value: result.error })
        throw replayFailure
      }
      return this.run
    }
    if (first) throw first
    return this.run
  }

  /** True once `finish()` was called. */
  get isFinished(): boolean {
    return this.finished
  }

  private async settle(): Promise<void> {
    if (this.pending.size === 0) return
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<void>((r) => {
      timer = setTimeout(r, this.settleMs)
    })
    await Promise.race([Promise.all([...this.pending].map((p) => p.done)), timeout])
    clearTimeout(timer)
    // A stream nobody finished reading by now is what it is: kept, marked incomplete.
    for (const p of this.pending) p.flush()
    this.pending.clear()
  }
}

function hasRules(matching: MatchingOptions | undefined): boolean {
  return (matching?.ignoreParams?.length ?? 0) > 0 || (matching?.normalize?.length ?? 0) > 0
}

function where(label: string | undefined, cassettePath: string | undefined): string {
  if (label && cassettePath) return `test "${label}" (cassette ${cassettePath})`
  if (label) return `test "${label}"`
  if (cassettePath) return `cassette ${cassettePath}`
  return 'the run'
}

function unusedError(whereText: string, unused: Step[], cassettePath: string | undefined): CrashlabError {
  const list = unused
    .slice(0, 10)
    .map(
      (s) =>
        `  - step ${s.index}: ${s.type === 'tool' ? `tool ${s.name}` : s.type === 'llm' ? `${s.provider} ${s.endpoint}` : s.label}`,
    )
  if (unused.length > 10) list.push(`  … and ${unused.length - 10} more`)
  return new CrashlabError(
    'E_REPLAY_UNUSED',
    `${whereText} ended with ${unused.length} recorded step${unused.length === 1 ? '' : 's'} never replayed:\n` +
      `${list.join('\n')}\nThe agent now does less than when it was recorded. If that is intended, re-record with ` +
      `\`${RERECORD_COMMAND}\` (or pass \`allowUnused: true\`).`,
    { subject: cassettePath },
  )
}
