import type { ChecksOptions } from '../checks/detectors/options.ts'
import type { PriceOverride } from '../cost/index.ts'
import type { Session } from '../engine/session.ts'
import type { SessionHooks } from '../engine/types.ts'
import { startAgentRun } from '../harness/start-agent-run.ts'
import type { Redactor } from '../redact/types.ts'
import type { StoredRunSummary } from '../store/types.ts'
import { productionPlan } from './internal/production-plan.ts'
import { type StoreOption, warnStore } from './internal/store-for.ts'

/**
 * How to start capturing one run in a long-lived process.
 *
 * @example
 * const options: StartCaptureOptions = { name: 'refund-bot', input: req.body, store: true, checks: { maxSteps: 40 } }
 */
export interface StartCaptureOptions {
  /** The agent: the run's name, and whose registered oracles grade it. */
  name: string
  /** What the agent was asked; stored redacted. */
  input?: unknown
  /** As `record`'s `store`: default, the default store outside Vitest and none under it. */
  store?: StoreOption
  /** Runtime checks over the config file's, key by key. */
  checks?: ChecksOptions
  prices?: Record<string, PriceOverride>
  redactor?: Redactor
  hooks?: SessionHooks
  /** The config file: a path, or `false` for none. Default: the one `loadConfig` finds. */
  config?: string | false
  tags?: string[]
}

/**
 * One run being captured: its Session, a way to run the agent's code in it, and the end of the run.
 *
 * @example
 * const capture = await startCapture({ name: 'refund-bot', input })
 * const answer = await capture.run(() => refundBot(input))
 * await capture.close({ output: answer })
 */
export interface Capture {
  readonly session: Session
  /** The run's id (a ULID), known from the start: log it beside the request to find the run later. */
  readonly id: string
  /** Runs `fn` in the capture's Session; its result, or its error rethrown unchanged. Call it as often as needed. */
  run<T>(fn: () => T | Promise<T>): Promise<T>
  /**
   * Ends the run (status `ok` with `output`, `error` with `error`), checks and grades it, saves it and
   * removes its journal. It never throws: capture failures are warnings. Undefined when not stored.
   */
  close(result?: { output?: unknown; error?: unknown }): Promise<StoredRunSummary | undefined>
}

/**
 * Starts capturing one agent run in an ordinary Node process (a server handling a request, a queue
 * worker, a script): a record-mode Session whose every finished step is journaled to the run store as
 * it happens (fsync'd), with the runtime checks of the config file. Model calls are seen through
 * `wrap(client)` (or `installInterceptor()`), tools through `tool()`. Nothing the agent sees changes:
 * calls go to the provider as they would, and a store that fails only warns. A process that dies
 * before `close` leaves a journal that the next `openStore()` (`record`, `capture`, `crashlab ls`)
 * saves as an incomplete run.
 *
 * @example
 * import OpenAI from 'openai'
 * import { startCapture, wrap } from 'crashlab'
 *
 * const openai = wrap(new OpenAI())
 * app.post('/refund', async (req, res) => {
 *   const capture = await startCapture({ name: 'refund-bot', input: req.body.message })
 *   try {
 *     const answer = await capture.run(() => refundBot(openai, req.body.message))
 *     await capture.close({ output: answer })
 *     res.json({ answer })
 *   } catch (error) {
 *     await capture.close({ error })
 *     throw error
 *   }
 * })
 */
export async function startCapture(options: StartCaptureOptions): Promise<Capture> {
  if (typeof options?.name !== 'string' || options.name.length === 0) {
    throw new TypeError(
      "[crashlab] startCapture(options) needs a name, as in startCapture({ name: 'refund-bot' })",
    )
  }
  const agentRun = await startAgentRun({
    ...productionPlan(options),
    session: { mode: 'record', label: options.name },
    name: options.name,
    input: options.input,
    hooks: [options.hooks],
    // The circuit breaker is how the run ended; anything else is crashlab's own failure, which must not
    // reach the app: a warning, and the run is kept as far as it got.
    finishRule: 'record',
    onCaptureFailure: warnStore,
    grade: { agent: options.name },
  })
  const { session } = agentRun
  return {
    session,
    id: session.run.id,
    run: (fn) => agentRun.run(fn),
    async close(result = {}) {
      const ended = await agentRun.finish(
        result.error !== undefined ? { error: result.error } : { output: result.output },
      )
      return ended.stored
    },
  }
}
