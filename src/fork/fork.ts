import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { JsonValue } from '../case/schema/json.ts'
import type { Run } from '../case/schema/run.ts'
import { applyOracles } from '../checks/oracles/apply-oracles.ts'
import { registeredOracles } from '../checks/oracles/oracle-registry.ts'
import type { ExchangeContext, RequestDecision, SessionHooks } from '../engine/types.ts'
import { CrashlabError } from '../errors.ts'
import { prepareAgentRun } from '../harness/prepare-agent-run.ts'
import { runAgent } from '../harness/run-agent.ts'
import { applyPatch } from '../patches/apply-patch.ts'
import type { Patch } from '../patches/patch-schema.ts'
import { interceptHostsOf, loadEntry, storedChecks } from '../rerun/replay-module.ts'
import { noEntryPointError } from '../rerun/replay-run.ts'
import { replayTest } from '../rerun/replay-test.ts'
import type { RunStore, StoredRunSummary } from '../store/types.ts'
import { FORK_ENV } from './fork-env.ts'

/**
 * Options of `fork`.
 *
 * @example
 * const options: ForkOptions = { atStep: 2, patch: { kind: 'system_prompt', op: 'append', text: 'Be brief.' } }
 */
export interface ForkOptions {
  /** The step the fork goes live from: 0-based over all steps (llm, tool, http), as `crashlab show` lists them. */
  atStep: number
  /** Applied to every model request from `atStep` on, before it leaves. Default: none (the fork only goes live). */
  patch?: Patch
  /**
   * Sends the live model calls to this origin instead of the recorded one (`http://127.0.0.1:8787`:
   * the request's path is kept). Default: the host the agent calls.
   */
  baseUrl?: string
  /** Saves the fork there (linked by `forkedFrom`, `forkStep` and `patch`), whatever it did. Default: not stored. */
  store?: RunStore
  /** Tags of the stored fork. */
  tags?: string[]
  /** Where the entry point's module is resolved. Default `process.cwd()`. */
  cwd?: string
  /** The project config file (checks, prices, redaction rules): a path, or `false` for none. Default: the one found from `cwd`. */
  config?: string | false
  /** The cassette the parent run was loaded from, named in messages. */
  sourcePath?: string
  /**
   * Entry point modules already loaded, shared by the forks of one batch (`verify` passes one), so the
   * module is loaded once and not once per fork: its module-level state is then shared by those forks,
   * as it is by the tests of one Vitest file. Default: the module is loaded afresh.
   */
  entryCache?: Map<string, Promise<(input: unknown) => unknown>>
  /**
   * Awaited before each live model call of a `module` entry point's fork (`verify --pace` shares one
   * across its forks to space their calls for a rate limit). Default: none.
   */
  beforeLiveCall?: () => Promise<void>
}

/**
 * What `fork` gives back.
 *
 * @example
 * const { run, error, stored } = await fork(parent, { atStep: 2, store })
 */
export interface ForkResult {
  /** The fork: a new run with `links.forkedFrom`, `links.forkStep` and `links.patch`. */
  run: Run
  /** Why the fork failed: a divergence before the fork step, or the agent's own error. Undefined when it ran. */
  error?: unknown
  /** The fork as stored, when `store` was given. */
  stored?: StoredRunSummary
}

/**
 * Forks a stored run at a step: runs its entry point again with the steps before `atStep` served
 * strictly from the run's recording (a divergence there fails the fork) and every call from `atStep` on
 * live, against the recorded host or `baseUrl`, with `patch` applied to each model request from
 * `atStep` on before it leaves. A `tool()` call equal to an unused call of the parent gets the recorded
 * result; a side-effect tool never runs live (any other call is blocked, a `blocked` step, and the agent
 * gets an `E_FORK_BLOCKED` error); a pure tool runs. A `module` entry point runs in this process; a run
 * of an `agentCase` test runs that one test through the project's Vitest; a run with none throws
 * `E_REPLAY_NO_ENTRY`. The agent's
 * error does not throw: the fork is still a run, returned (and stored) with it as `error`.
 *
 * @example
 * const store = await openStore()
 * const patch = { kind: 'system_prompt', op: 'append', text: 'Never refund more than the order total.' } as const
 * const { run } = await fork(store.load('last'), { atStep: 2, patch, store })
 * console.log(run.links) // { forkedFrom: '…', forkStep: 2, patch: { kind: 'system_prompt', … } }
 */
export async function fork(parent: Run, options: ForkOptions): Promise<ForkResult> {
  const entry = parent.entryPoint
  if (!entry) throw noEntryPointError(parent)
  const { atStep } = options
  if (!Number.isInteger(atStep) || atStep < 0 || atStep >= parent.steps.length) {
    throw new CrashlabError(
      'E_FORK_STEP',
      `run ${parent.id} has ${parent.steps.length} steps (0 to ${parent.steps.length - 1}): cannot fork at step ${atStep}. ` +
        `See the steps with \`crashlab show ${parent.id}\`.`,
      { subject: parent.id },
    )
  }
  const cwd = options.cwd ?? process.cwd()
  if (entry.kind === 'test') return forkTest(parent, entry, options, cwd)
  const prepared = await prepareAgentRun({ cwd, config: options.config, checks: storedChecks(parent) })

  // The replayed prefix follows the replay rule through its Session; once live the fork keeps its network.
  const interceptor = interceptHostsOf(parent, {
    outsideSession: 'passthrough',
    allowHosts: prepared.config.allowHosts,
  })
  let run: Run
  let error: unknown
  try {
    const fn = await cachedEntry(entry, cwd, options.entryCache)
    const ended = await runAgent(
      {
        prepared,
        session: {
          mode: 'replay',
          recorded: parent,
          forkAt: atStep,
          cassettePath: options.sourcePath,
          onWarning: () => {},
        },
        input: parent.input,
        hooks: [{ onRequest: forkRequestHook(options) }],
        entryPoint: entry,
        metadata: { ...parent.metadata },
        // A divergence before the fork step, or a halt: the fork is still a run, which says how it failed.
        finishRule: 'replay',
        failIf: (session) =>
          session.mode === 'record'
            ? undefined
            : new CrashlabError(
                'E_FORK_STEP',
                `the fork of run ${parent.id} ended before step ${atStep}: the agent made fewer calls than its parent, so nothing went live.`,
                { subject: parent.id },
              ),
      },
      fn,
    )
    run = ended.run
    error = ended.error
  } finally {
    await interceptor.close()
  }
  // Graded after the interceptor is gone: an oracle's own calls are not the fork's.
  if (registeredOracles(parent.name).length > 0) run = (await applyOracles(run, { agent: parent.name })).run
  const links = {
    ...run.links,
    forkedFrom: parent.id,
    forkStep: atStep,
    ...(options.patch && { patch: options.patch as unknown as JsonValue }),
  }
  run = { ...run, links }
  const stored = options.store?.save(run, { tags: options.tags })
  return { run, ...(error !== undefined && { error }), ...(stored && { stored }) }
}

function cachedEntry(
  entry: Extract<NonNullable<Run['entryPoint']>, { kind: 'module' }>,
  cwd: string,
  cache: ForkOptions['entryCache'],
): Promise<(input: unknown) => unknown> {
  if (!cache) return loadEntry(entry, cwd)
  const key = JSON.stringify([cwd, entry.module, entry.export])
  let loading = cache.get(key)
  if (!loading) {
    loading = loadEntry(entry, cwd)
    cache.set(key, loading)
    // A failed load is not kept: the next fork tries again and reports its own error.
    loading.catch(() => cache.delete(key))
  }
  return loading
}

/**
 * The fork's `onRequest` hook: from the fork step on (the Session records then), each model request is
 * patched, and sent to `baseUrl` when given. Before it, requests are replayed as they are.
 */
export function forkRequestHook(
  options: Pick<ForkOptions, 'patch' | 'baseUrl' | 'beforeLiveCall'>,
): NonNullable<SessionHooks['onRequest']> {
  const decide = (ctx: ExchangeContext): RequestDecision | undefined => {
    if (ctx.session.mode !== 'record' || ctx.kind !== 'llm' || !ctx.normalized) return undefined
    if (!options.patch && !options.baseUrl) return undefined
    const step = ctx.session.run.steps.length
    const request = options.patch
      ? applyPatch(options.patch, ctx.normalized, { step }).request
      : ctx.normalized
    return options.baseUrl ? { rewrite: request, baseUrl: options.baseUrl } : { rewrite: request }
  }
  const gate = options.beforeLiveCall
  if (!gate) return decide
  return async (ctx) => {
    if (ctx.session.mode === 'record' && ctx.kind === 'llm') await gate()
    return decide(ctx)
  }
}

/**
 * A fork of an `agentCase` run: the project's Vitest runs that one test (as `crashlab replay` does),
 * told by FORK_ENV to fork it at `atStep` with the patch; the forked run comes back through a file.
 */
async function forkTest(
  parent: Run,
  entry: Extract<NonNullable<Run['entryPoint']>, { kind: 'test' }>,
  options: ForkOptions,
  cwd: string,
): Promise<ForkResult> {
  const tmp = mkdtempSync(join(tmpdir(), 'crashlab-fork-'))
  try {
    const patchFile = join(tmp, 'patch.json')
    writeFileSync(patchFile, JSON.stringify(options.patch ?? null))
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      [FORK_ENV.at]: String(options.atStep),
      [FORK_ENV.patch]: patchFile,
    }
    if (options.baseUrl) env[FORK_ENV.baseUrl] = options.baseUrl
    const replayed = await replayTest(parent, entry, {
      cwd,
      env,
      ...(options.sourcePath && { sourcePath: options.sourcePath }),
    })
    const links = {
      ...replayed.run.links,
      forkedFrom: parent.id,
      forkStep: options.atStep,
      ...(options.patch && { patch: options.patch as unknown as JsonValue }),
    }
    const { replayOf: _replayOf, ...rest } = links
    const run: Run = { ...replayed.run, links: rest }
    const stored = options.store?.save(run, { tags: options.tags })
    return { run, ...(replayed.error !== undefined && { error: replayed.error }), ...(stored && { stored }) }
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
}
