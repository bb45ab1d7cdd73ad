import type { Run } from '../case/schema/run.ts'
import { CrashlabError } from '../errors.ts'
import { prepareAgentRun } from '../harness/prepare-agent-run.ts'
import { ledgerMark, ledgerSince, type NetworkLedger } from '../interceptor/network-ledger.ts'
import { interceptHostsOf, loadEntry, storedChecks } from '../rerun/replay-module.ts'
import { replayTest } from '../rerun/replay-test.ts'
import type { RunStore } from '../store/types.ts'
import {
  crashEntryOf,
  judgeCrashVariant,
  type PlayedCrashVariant,
  playCrashVariant,
} from './crash-variant.ts'
import { type Fault, parseFault } from './faults.ts'
import { type CrashCell, crashCells } from './inject.ts'
import type { CrashCellResult, SurviveFn } from './judge.ts'

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
 * in this process, loaded once for all the variants; a run an `agentCase` test made (a `test` entry
 * point) is crash-tested by that test, in the project's Vitest, which runs the cells after replaying the
 * run (`survive` plays no part there: the test's oracles judge); a run with neither is
 * `E_REPLAY_NO_ENTRY`.
 *
 * @example
 * const matrix = await runCrashMatrix(store.load('last'), { faults: [{ kind: 'rate_limit' }], store })
 * for (const cell of matrix.cells) console.log(cell.step, cell.fault.kind, cell.outcome)
 */
export async function runCrashMatrix(parent: Run, options: CrashMatrixOptions): Promise<CrashMatrix> {
  const cells = crashCells(parent, options.faults, options.steps)
  const cwd = options.cwd ?? process.cwd()
  if (parent.entryPoint?.kind === 'test') return crashTestOfTest(parent, parent.entryPoint, cells, options)
  const entry = crashEntryOf(parent)
  const prepared = await prepareAgentRun({ cwd, config: options.config, checks: storedChecks(parent) })
  // One interceptor over all the variants, started before the entry point loads (a client the module
  // builds at load time sees it).
  const interceptor = interceptHostsOf(parent, {
    outsideSession: 'replay',
    allowHosts: prepared.config.allowHosts,
  })
  const mark = ledgerMark()
  const played: PlayedCrashVariant[] = []
  try {
    const fn = await loadEntry(entry, cwd)
    for (const cell of cells) {
      played.push(await playCrashVariant(parent, cell, { prepared, fn, sourcePath: options.sourcePath }))
      options.onProgress?.(played.length, cells.length)
    }
  } finally {
    await interceptor.close()
  }
  const network = ledgerSince(mark)
  // Graded after the interceptor is gone: an oracle's own calls are not the variants'.
  const results: CrashCellResult[] = []
  for (const [i, cell] of cells.entries())
    results.push(await judgeCrashVariant(parent, cell, played[i] as PlayedCrashVariant, options))
  return { runId: parent.id, cells: results, network }
}

/**
 * The crash test of a run an `agentCase` test made: the project's Vitest runs that one test, which
 * replays the run and then runs the cells over it in its own worker (its agent function, input and
 * oracles are the test's), writing each variant as a redacted cassette; here they are stored and linked.
 * A test that cannot replay the run is `E_REPLAY_ENTRY`, with Vitest's reason.
 */
async function crashTestOfTest(
  parent: Run,
  entry: Extract<NonNullable<Run['entryPoint']>, { kind: 'test' }>,
  cells: readonly CrashCell[],
  options: CrashMatrixOptions,
): Promise<CrashMatrix> {
  const empty: NetworkLedger = { requests: [], connections: [], refused: [] }
  if (cells.length === 0) return { runId: parent.id, cells: [], network: empty }
  const replayed = await replayTest(parent, entry, {
    cwd: options.cwd ?? process.cwd(),
    sourcePath: options.sourcePath,
    crash: { faults: options.faults, ...(options.steps && { steps: options.steps }) },
  })
  if (!replayed.crashCells) {
    const why = replayed.failure ?? (replayed.error as Error | undefined)?.message ?? 'it ran no agent'
    throw new CrashlabError(
      'E_REPLAY_ENTRY',
      `the test "${entry.test}" (${entry.file}) did not get to the crash cells of run ${parent.id}: ${why.replace(/^\[crashlab\] /, '')}\n` +
        `The cells run after the test replays the run: \`crashlab replay ${parent.id}\` shows what the replay does.`,
      { subject: parent.id },
    )
  }
  const results = replayed.crashCells.map((cell): CrashCellResult => {
    const stored = options.store?.save(cell.variant, { tags: ['crash-test', ...(options.tags ?? [])] })
    return {
      step: cell.step,
      fault: parseFault(cell.fault, `the cell at step ${cell.step}`),
      outcome: cell.outcome,
      detail: cell.detail,
      runId: stored?.id ?? cell.variant.id,
    }
  })
  options.onProgress?.(results.length, results.length)
  return { runId: parent.id, cells: results, network: replayed.network ?? empty }
}
