import type { Run } from '../case/schema/run.ts'
import { applyOracles } from '../checks/oracles/apply-oracles.ts'
import { registeredOracles } from '../checks/oracles/oracle-registry.ts'
import { CrashlabError } from '../errors.ts'
import { prepareAgentRun } from '../harness/prepare-agent-run.ts'
import { runAgent } from '../harness/run-agent.ts'
import { ledgerMark, ledgerSince, type NetworkLedger } from '../interceptor/network-ledger.ts'
import { interceptHostsOf, loadEntry, storedChecks } from '../rerun/replay-module.ts'
import { noEntryPointError } from '../rerun/replay-run.ts'
import type { RunStore } from '../store/types.ts'
import type { Fault } from './faults.ts'
import { crashCells, faultInjection } from './inject.ts'
import { type CrashCellResult, judgeVariant, type SurviveFn } from './judge.ts'

/**
 * Options of `runCrashMatrix`.
 *
 * @example
 * const options: CrashMatrixOptions = { faults: ALL_MODEL_FAULTS, steps: [0, 2], store }
 */
export interface CrashMatrixOptions {
  /** The faults to inject, each at every step it fits (a model fault at a model call, a tool fault at a tool call). */
  faults: readonly Fault[]
  /** The recorded steps to inject at (their indexes, as `crashlab show` lists them). Default: all. */
  steps?: readonly number[]
  /** Saves each variant there, linked to the run by `links.crashOf` (its step and fault). Default: not stored. */
  store?: RunStore
  /** Tags of the stored variants (besides `crash-test`). */
  tags?: readonly string[]
  /** Where the entry point's module is resolved. Default `process.cwd()`. */
  cwd?: string
  /** The project config file: a path, or `false` for none. Default: the one found from `cwd`. */
  config?: string | false
  /** The cassette the run was loaded from, named in messages. */
  sourcePath?: string
  /** The caller's own verdict on each variant, after the agent's oracles: false means it did not survive. */
  survive?: SurviveFn
  /** Called as each variant ends: progress for long matrices. */
  onProgress?: (done: number, total: number) => void
}

/**
 * A crash test's matrix: each cell's outcome, and what the variants sent to the network (nothing, in a
 * faithful replay).
 */
export interface CrashMatrix {
  /** The run the variants replay. */
  runId: string
  cells: CrashCellResult[]
  /** Requests and connections the variants let out (a replay refuses the rest, counted as `refused`). */
  network: NetworkLedger
}

/**
 * Crash-tests a stored run: for each fault at each step it fits, runs the run's entry point again in a
 * replay where that step's answer is the fault; whatever the agent does next (a retry, a fallback) is
 * served from the recording where it matches. Each variant is judged (`judgeVariant`): survived,
 * failed, or diverged (it asked for something the recording does not hold). A `module` entry point runs
 * in this process, loaded once for all the variants; a run without one is `E_REPLAY_NO_ENTRY`.
 *
 * @example
 * const matrix = await runCrashMatrix(store.load('last'), { faults: [{ kind: 'rate_limit' }], store })
 * for (const cell of matrix.cells) console.log(cell.step, cell.fault.kind, cell.outcome)
 */
export async function runCrashMatrix(parent: Run, options: CrashMatrixOptions): Promise<CrashMatrix> {
  const entry = parent.entryPoint
  if (!entry) throw noEntryPointError(parent)
  if (entry.kind !== 'module')
    throw new CrashlabError(
      'E_REPLAY_NO_ENTRY',
      `run ${parent.id} (${parent.name}) comes from the test "${entry.test}" (${entry.file}): crash-test it in Vitest with ` +
        "`crashTest()` from 'crashlab/vitest' beside that test, or record it with a `module` entry point.",
      { subject: parent.id },
    )
  const cells = crashCells(parent, options.faults, options.steps)
  const cwd = options.cwd ?? process.cwd()
  const prepared = await prepareAgentRun({ cwd, config: options.config, checks: storedChecks(parent) })
  const interceptor = interceptHostsOf(parent, {
    outsideSession: 'replay',
    allowHosts: prepared.config.allowHosts,
  })
  const mark = ledgerMark()
  const ran: Array<{ run: Run; error: unknown; injected: boolean }> = []
  try {
    const fn = await loadEntry(entry, cwd)
    for (const cell of cells) {
      const ended = await runAgent(
        {
          prepared,
          session: {
            mode: 'replay',
            recorded: parent,
            cassettePath: options.sourcePath,
            // The agent may give up after the fault: what it leaves unused is not a failure by itself.
            allowUnused: true,
            inject: faultInjection(cell.fault, cell.step),
            onWarning: () => {},
          },
          input: parent.input,
          entryPoint: entry,
          metadata: { ...parent.metadata },
          finishRule: 'replay',
        },
        fn,
      )
      ran.push({ run: ended.run, error: ended.error, injected: ended.session.injectedAt !== undefined })
      options.onProgress?.(ran.length, cells.length)
    }
  } finally {
    await interceptor.close()
  }
  const network = ledgerSince(mark)
  // Graded after the interceptor is gone: an oracle's own calls are not the variants'.
  const graded = registeredOracles(parent.name).length > 0
  const results: CrashCellResult[] = []
  for (const [i, cell] of cells.entries()) {
    const { error, injected } = ran[i] as (typeof ran)[number]
    let run = (ran[i] as (typeof ran)[number]).run
    if (graded) run = (await applyOracles(run, { agent: parent.name })).run
    const judged = judgeVariant(run, cell.fault, { error, injected, survive: options.survive })
    const stored = options.store?.save(run, { tags: ['crash-test', ...(options.tags ?? [])] })
    results.push({ ...cell, ...judged, runId: stored?.id ?? run.id })
  }
  return { runId: parent.id, cells: results, network }
}
