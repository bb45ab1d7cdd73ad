import { isAbsolute, resolve } from 'node:path'
import type { EntryPoint, Run } from '../case/schema/run.ts'
import type { ChecksOptions } from '../checks/detectors/options.ts'
import type { SessionHooks } from '../engine/types.ts'
import { CrashlabError, isCrashlabError } from '../errors.ts'
import { runAgent } from '../harness/run-agent.ts'
import type { PreparedAgentRun } from '../harness/types.ts'
import { guardReplaySockets } from '../interceptor/guard-replay-sockets.ts'
import { DEFAULT_HOSTS } from '../interceptor/host-matcher.ts'
import { ledgerMark, ledgerSince, type NetworkLedger } from '../interceptor/network-ledger.ts'
import { startInterceptor } from '../interceptor/start-interceptor.ts'
import { importWithVite } from './internal/import-with-vite.ts'

type ModuleEntry = Extract<EntryPoint, { kind: 'module' }>

interface ModuleReplayOptions {
  cwd: string
  /** The config, runtime checks and redactor of the replay (`allowHosts`: hosts it may reach besides loopback). */
  prepared: PreparedAgentRun
  allowUnused?: boolean
  intercept?: boolean
  sourcePath?: string
  /** Rewrites model requests before they are matched (a patch re-applied to a patched fork). */
  onRequest?: SessionHooks['onRequest']
}

/**
 * Imports the entry point's module through Vite's module runner and calls its export with the run's
 * input in a strict replay Session over the run. The interceptor (started before the import, so the
 * clients the module builds at load time see it) serves the calls of clients that are not wrapped, and
 * the replay rule refuses what the recording does not answer; what left is counted (`network`). The
 * run comes back checked by the runtime checks, not graded.
 */
export async function replayModule(
  source: Run,
  entry: ModuleEntry,
  options: ModuleReplayOptions,
): Promise<{ run: Run; error?: unknown; network: NetworkLedger; thrown?: boolean }> {
  const interceptor = interceptHostsOf(source, {
    intercept: options.intercept,
    outsideSession: 'replay',
    allowHosts: options.prepared.config.allowHosts,
  })
  const mark = ledgerMark()
  try {
    const fn = await loadEntry(entry, options.cwd)
    const ended = await runAgent(
      {
        prepared: options.prepared,
        session: {
          mode: 'replay',
          recorded: source,
          // Messages name the source's cassette ("replay of cassette … diverged at step 2").
          cassettePath: options.sourcePath,
          allowUnused: options.allowUnused,
          // A replay keeps quiet about what it cannot throw: the caller gets the first error.
          onWarning: () => {},
        },
        input: source.input,
        hooks: [options.onRequest && { onRequest: options.onRequest }],
        entryPoint: entry,
        metadata: { ...source.metadata },
        // A divergence, steps left unused, a halt: the replay is still a run, which says how it failed.
        finishRule: 'replay',
      },
      fn,
    )
    const { run, error } = ended
    if (error === undefined) return { run, network: ledgerSince(mark) }
    return ended.errorFrom === 'agent'
      ? { run, error, network: ledgerSince(mark), thrown: true }
      : { run, error, network: ledgerSince(mark) }
  } finally {
    await interceptor.close()
  }
}

/** The entry point's exported function, imported through Vite's module runner (forks load it too). */
export async function loadEntry(entry: ModuleEntry, cwd: string): Promise<(input: unknown) => unknown> {
  const id =
    entry.module.startsWith('.') || isAbsolute(entry.module) ? resolve(cwd, entry.module) : entry.module
  let module: Record<string, unknown>
  try {
    module = await importWithVite(id, cwd)
  } catch (error) {
    if (isCrashlabError(error)) throw error
    throw new CrashlabError(
      'E_REPLAY_ENTRY',
      `cannot load the entry point module ${entry.module} (resolved from ${cwd}): ${(error as Error)?.message ?? error}. ` +
        'Run the replay from the folder the run was recorded in (`--cwd`), or record it again with the right `entryPoint.module`.',
      { subject: entry.module, cause: error },
    )
  }
  const fn = module[entry.export]
  if (typeof fn !== 'function') {
    const names = Object.keys(module).filter((k) => typeof module[k] === 'function')
    throw new CrashlabError(
      'E_REPLAY_ENTRY',
      `the entry point module ${entry.module} has no function export "${entry.export}"` +
        (names.length ? ` (its function exports: ${names.join(', ')})` : '') +
        '. Record the run again with the right `entryPoint.export`.',
      { subject: entry.module },
    )
  }
  return fn as (input: unknown) => unknown
}

/**
 * The interceptor for crashlab's default model hosts and every host the run called, started even for a
 * run with no model or http step (a model call that escaped its recording must not go live at replay).
 * The replay rule decides the rest (`replayRule`): a fork passes `outsideSession: 'passthrough'` and
 * keeps its network once live; a replay refuses what its Session does not answer, outside it too.
 * One already running in this process (the Vitest plugin's) is used as it is; with `intercept: false`
 * only the sockets are guarded. Returns what to close.
 */
export function interceptHostsOf(
  run: Run,
  options: { intercept?: boolean; outsideSession: 'replay' | 'passthrough'; allowHosts?: readonly string[] },
): { close(): unknown } {
  const network = { outsideSession: options.outsideSession, allowHosts: options.allowHosts }
  if (options.intercept === false) {
    const release = guardReplaySockets(network)
    return { close: release }
  }
  const hosts = new Set<string>(DEFAULT_HOSTS)
  for (const step of run.steps) {
    const url =
      step.type === 'llm' ? step.request.wire.url : step.type === 'http' ? step.request.url : undefined
    if (!url) continue
    try {
      hosts.add(new URL(url).origin)
    } catch {
      // a stored URL that does not parse names no host
    }
  }
  try {
    return startInterceptor({ hosts: [...hosts].sort(), ...network })
  } catch (error) {
    // Another interceptor (the Vitest plugin's) already serves this process: its handlers read the same
    // Session store and it guards the sockets; wrapped clients never need one.
    if (isCrashlabError(error, 'E_INTERCEPTOR_CONFLICT')) return { close: () => {} }
    throw error
  }
}

/**
 * The runtime checks a run was recorded with (`metadata.checks`, which `agentCase` and `record` keep).
 *
 * @example
 * new RuntimeChecks({ checks: storedChecks(run) })
 */
export function storedChecks(run: Run): ChecksOptions | undefined {
  const checks = run.metadata.checks
  return typeof checks === 'object' && checks !== null && !Array.isArray(checks)
    ? (checks as ChecksOptions)
    : undefined
}
