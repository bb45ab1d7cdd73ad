import type { JsonValue } from '../case/schema/json.ts'
import type { Run } from '../case/schema/run.ts'
import type { ChecksOptions } from '../checks/detectors/options.ts'
import { applyOracles } from '../checks/oracles/apply-oracles.ts'
import { composeHooks } from '../checks/runtime/compose-hooks.ts'
import { RuntimeChecks } from '../checks/runtime/runtime-checks.ts'
import { loadConfig } from '../config/load-config.ts'
import { mergeConfig } from '../config/merge-config.ts'
import type { PriceOverride } from '../cost/index.ts'
import { runInSession } from '../engine/context.ts'
import { Session } from '../engine/session.ts'
import type { SessionHooks } from '../engine/types.ts'
import { isCrashlabError } from '../errors.ts'
import { createRedactor } from '../redact/create-redactor.ts'
import type { Redactor } from '../redact/types.ts'
import type { StoredRunSummary } from '../store/types.ts'
import { CaptureJournal } from './internal/capture-journal.ts'
import { type StoreOption, storeFor, warnStore } from './internal/store-for.ts'

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
  const { config } = await loadConfig({ file: options.config })
  const layered = mergeConfig(config, { checks: options.checks, prices: options.prices })
  const checks = new RuntimeChecks({ checks: layered.checks, prices: layered.prices })
  const redactor = options.redactor ?? (config.redaction ? createRedactor(config.redaction) : undefined)
  const store = await storeFor(options.store, { config: options.config })
  const journal = store ? new CaptureJournal(store, redactor, options.tags) : undefined
  const session = new Session({
    mode: 'record',
    name: options.name,
    input: toJson(options.input),
    label: options.name,
    redactor,
    hooks: composeHooks(journal?.hooks, options.hooks, checks.hooks),
  })
  journal?.start(session)
  let closing: Promise<StoredRunSummary | undefined> | undefined
  return {
    session,
    id: session.run.id,
    run: (fn) => runInSession(session, async () => fn()),
    close(result = {}) {
      closing ??= end(session, checks, journal, options.name, result)
      return closing
    },
  }
}

async function end(
  session: Session,
  checks: RuntimeChecks,
  journal: CaptureJournal | undefined,
  agent: string,
  result: { output?: unknown; error?: unknown },
): Promise<StoredRunSummary | undefined> {
  let finished: Run
  try {
    finished = await session.finish(
      result.error !== undefined ? { error: result.error } : { output: result.output },
    )
  } catch (stopped) {
    // The circuit breaker is how the run ended (checks.finalize marks the run so); anything else is
    // crashlab's own failure, which must not reach the app: the run is kept as far as it got.
    if (!isCrashlabError(stopped, 'E_CIRCUIT_OPEN'))
      warnStore(`capture of run ${session.run.id} failed`, stopped)
    finished = session.run
  }
  try {
    const { run } = await applyOracles(checks.finalize(finished), { agent })
    return journal?.finish(run)
  } catch (error) {
    warnStore(`could not grade run ${finished.id}`, error)
    return journal?.finish(finished)
  }
}

function toJson(value: unknown): JsonValue {
  if (value === undefined) return null
  try {
    return JSON.parse(JSON.stringify(value)) as JsonValue
  } catch {
    return String(value)
  }
}
