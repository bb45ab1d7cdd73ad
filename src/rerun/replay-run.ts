import type { Run } from '../case/schema/run.ts'
import { applyOracles } from '../checks/oracles/apply-oracles.ts'
import { registeredOracles } from '../checks/oracles/oracle-registry.ts'
import type { RequestDecision, SessionHooks } from '../engine/types.ts'
import { CrashlabError } from '../errors.ts'
import { prepareAgentRun } from '../harness/prepare-agent-run.ts'
import type { NetworkLedger } from '../interceptor/network-ledger.ts'
import { applyPatch } from '../patches/apply-patch.ts'
import type { Patch } from '../patches/patch-schema.ts'
import type { RunStore, StoredRunSummary } from '../store/types.ts'
import { replayModule, storedChecks } from './replay-module.ts'
import { replayTest } from './replay-test.ts'

/**
 * Options of `replayRun`.
 *
 * @example
 * const options: ReplayRunOptions = { cwd: '/repo', store: await openStore(), tags: ['nightly-replay'] }
 */
export interface ReplayRunOptions {
  /** Where the entry point's paths are resolved (`module`, the test `file`) and Vitest runs. Default `process.cwd()`. */
  cwd?: string
  /** Saves the replay there (with `links.replayOf` naming the source run), whatever it did. Default: not stored. */
  store?: RunStore
  /** Tags of the stored replay. */
  tags?: string[]
  /** The project config file (checks, prices, redaction rules): a path, or `false` for none. Default: the one found from `cwd`. */
  config?: string | false
  /** Lets the replay end with recorded model or tool steps unused. Default false: a replay does what the run did. */
  allowUnused?: boolean
  /**
   * For a `module` entry point: start crashlab's interceptor for the hosts the run called (default
   * true), so that SDK clients the module builds itself are replayed too. Off, only clients given to
   * `wrap(client)` are.
   */
  intercept?: boolean
  /** The cassette the source run was loaded from, named in a divergence's message. */
  sourcePath?: string
  /** For a `test` entry point: receives Vitest's output, chunk by chunk. Default: dropped. */
  onOutput?: (chunk: string) => void
  /** For a `test` entry point: the environment of the Vitest child. Default `process.env`. */
  env?: NodeJS.ProcessEnv
  /**
   * Replays a patched fork: `patch` is applied to every model request from `atStep` on, before it is
   * matched, as `fork` applied it when it went live. A `module` entry point only (`E_REPLAY_ENTRY`).
   */
  reapply?: { patch: Patch; atStep: number }
}

/**
 * What `replayRun` gives back.
 *
 * @example
 * const { run, error, stored } = await replayRun(source, { store })
 * if (error) console.error(error instanceof Error ? error.message : error)
 */
export interface ReplayResult {
  /** The replayed run: a new id, `links.replayOf` the source's, graded like the source. */
  run: Run
  /**
   * Why the replay was not faithful: a `DivergenceError` (`E_DIVERGENCE`), recorded steps left unused
   * (`E_REPLAY_UNUSED`), a refused request, or an error the agent threw where the run had returned.
   * Undefined when the replay did what the run did, whatever its outcome.
   */
  error?: unknown
  /**
   * True when the replay did what the run did (`error` undefined; the replay's status is `ok`). Its
   * outcome is then the verdict: a faithful replay of a failing run is a successful replay whose
   * outcome is `fail`.
   */
  faithful: boolean
  /**
   * Why a faithful replay's outcome is `fail`, in words, when there is more to say than the checks: the
   * first failure of the replayed test (a `test` entry point), or the error the agent threw again.
   */
  failure?: string
  /** The replay as stored, when `store` was given. */
  stored?: StoredRunSummary
  /**
   * What the replay let out and refused, counted where it happened (requests passed by the HTTP
   * interception, connections opened at the socket): "nothing sent" when both `requests` and
   * `connections` are empty. For a `test` entry point, what the Vitest child counted; absent when
   * the child wrote no count.
   */
  network?: NetworkLedger
}

/**
 * Runs a stored run's entry point again, offline, against the run's own recording: every model call is
 * served from its steps, every `tool()` call gets its recorded result, and the replay rule refuses the
 * rest (any other model call, any request to a host that is not loopback or in `allowHosts`); what did
 * leave is counted in `network`. A
 * `module` entry point (`record(name, fn, { entryPoint })`) is imported through Vite's module runner
 * (TypeScript works) and its export called with the run's input in a strict replay Session; a `test`
 * entry point (an `agentCase` test) is run by the project's Vitest, that one test replaying this run.
 * A run with no entry point throws `E_REPLAY_NO_ENTRY`. A divergence does not throw: the replay is
 * still a run (status `error`), returned (and stored) with the divergence as `error`. A replay that did
 * what the run did is `faithful` (status `ok`), whatever its outcome: a failing run replays as a
 * faithful replay whose outcome is `fail`.
 *
 * @example
 * import { openStore, replayRun } from 'crashlab'
 *
 * const store = await openStore()
 * const { run, error } = await replayRun(store.load('last'), { store })
 * console.log(run.links.replayOf, error ? 'diverged' : 'replayed')
 * store.close()
 */
export async function replayRun(source: Run, options: ReplayRunOptions = {}): Promise<ReplayResult> {
  const entry = source.entryPoint
  if (!entry) throw noEntryPointError(source)
  const cwd = options.cwd ?? process.cwd()
  let replayed: { run: Run; error?: unknown; failure?: string; network?: NetworkLedger }
  if (entry.kind === 'test' && options.reapply) {
    throw new CrashlabError(
      'E_REPLAY_ENTRY',
      `run ${source.id} (${source.name}) was started by the test ${entry.test}: only a run with a module entry ` +
        'point can be replayed with a patch re-applied. Record the agent with `record(name, fn, { entryPoint: ' +
        "{ kind: 'module', … } })` to export its fixes.",
      { subject: source.id },
    )
  }
  if (entry.kind === 'test') {
    replayed = await replayTest(source, entry, { ...options, cwd })
  } else {
    // The checks the source ran with: the config file's, under the test's own (agentCase stores them).
    const prepared = await prepareAgentRun({
      cwd,
      config: options.config,
      env: options.env,
      checks: storedChecks(source),
    })
    const onRequest = options.reapply && reapplyFrom(options.reapply.patch, options.reapply.atStep)
    const done = await replayModule(source, entry, { ...options, cwd, prepared, onRequest })
    // The agent threw again as it threw when recorded, with every step served: a faithful replay.
    const threwAgain = done.thrown === true && source.status === 'error'
    const error = threwAgain ? undefined : done.error
    const graded = await grade(done.run, source, error)
    replayed = threwAgain
      ? {
          run: { ...graded, status: 'ok', outcome: 'fail' },
          failure: `the agent threw again, as recorded: ${messageOf(done.error)}`,
          network: done.network,
        }
      : { run: graded, error, network: done.network }
  }
  // A replay's status says whether it was faithful: `ok` when it did what the run did, `error` when not.
  const status = replayed.error === undefined ? 'ok' : 'error'
  const run: Run = { ...replayed.run, status, links: { ...replayed.run.links, replayOf: source.id } }
  const stored = options.store?.save(run, { tags: options.tags })
  return {
    run,
    faithful: replayed.error === undefined,
    ...(replayed.error !== undefined && { error: replayed.error }),
    ...(replayed.failure !== undefined && { failure: replayed.failure }),
    ...(stored && { stored }),
    ...(replayed.network && { network: replayed.network }),
  }
}

function messageOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/^\[crashlab\] /, '')
}

/**
 * The message of a run that cannot be started again, naming the two ways to give it an entry point.
 *
 * @example
 * throw noEntryPointError(run)
 */
export function noEntryPointError(run: Run): CrashlabError {
  return new CrashlabError(
    'E_REPLAY_NO_ENTRY',
    `run ${run.id} (${run.name}) has no entry point, so there is nothing to start again: crashlab replays a ` +
      "run by calling its agent again. Record it with one: `record(name, fn, { input, entryPoint: { kind: 'module', " +
      "module: './src/agent.ts', export: 'runAgent' } })` for an importable function, or run it as an " +
      '`agentCase` test (its runs name the test), or name the agent: `crashlab replay <id> --entry ' +
      './src/agent.ts#runAgent` (a run imported from a trace names none). `crashlab replay <file.agentcase> --mock` ' +
      'replays a case without its agent.',
    { subject: run.id },
  )
}

/**
 * The oracles registered for the agent in this process (the entry module registers them when it imports
 * its `check()` calls) grade the replay; with none registered, a replay that went as recorded keeps the
 * source's check results, as `crashlab check` keeps them: they cannot be evaluated again here.
 */
async function grade(run: Run, source: Run, error: unknown): Promise<Run> {
  if (registeredOracles(source.name).length > 0) return (await applyOracles(run, { agent: source.name })).run
  return error === undefined ? { ...run, checks: source.checks, outcome: source.outcome } : run
}

/** The replay's `onRequest` hook: each model request from `atStep` on is patched before it is matched. */
function reapplyFrom(patch: Patch, atStep: number): NonNullable<SessionHooks['onRequest']> {
  if (!Number.isInteger(atStep) || atStep < 0) {
    throw new CrashlabError('E_REPLAY_ENTRY', `atStep must be a step number ≥ 0; got ${atStep}`)
  }
  return (ctx): RequestDecision | undefined => {
    if (ctx.kind !== 'llm' || !ctx.normalized) return undefined
    const step = ctx.session.run.steps.length
    if (step < atStep) return undefined
    return { rewrite: applyPatch(patch, ctx.normalized, { step }).request }
  }
}
