import type { EntryPoint, Run } from '../case/schema/run.ts'
import { applyOracles } from '../checks/oracles/apply-oracles.ts'
import { registeredOracles } from '../checks/oracles/oracle-registry.ts'
import { CrashlabError } from '../errors.ts'
import { prepareAgentRun } from '../harness/prepare-agent-run.ts'
import { runAgent } from '../harness/run-agent.ts'
import type { PreparedAgentRun } from '../harness/types.ts'
import { interceptHostsOf, loadEntry, storedChecks } from '../rerun/replay-module.ts'
import { noEntryPointError } from '../rerun/replay-run.ts'
import type { RunStore } from '../store/types.ts'
import { type CrashCell, faultInjection } from './inject.ts'
import { type CrashCellResult, judgeVariant, type SurviveFn } from './judge.ts'

/** A `module` entry point: the only kind a crash test starts outside Vitest. */
export type ModuleEntryPoint = Extract<EntryPoint, { kind: 'module' }>

/**
 * What every variant of one crash test shares: the prepared config and checks, the entry point's
 * function (loaded once), and where the variants go.
 *
 * @example
 * const context: CrashVariantContext = { prepared, fn: await loadEntry(entry, cwd), store }
 */
export interface CrashVariantContext {
  /** The config, runtime checks and redactor of the replays (`prepareAgentRun` with the run's checks). */
  prepared: PreparedAgentRun
  /** The entry point's exported function (`loadEntry`). */
  fn: (input: unknown) => unknown
  /** The cassette the run was loaded from, named in messages. */
  sourcePath?: string
  /** Saves each variant there, linked to the run by `links.crashOf`. Default: not stored. */
  store?: RunStore
  /** Tags of the stored variants (besides `crash-test`). */
  tags?: readonly string[]
  /** The caller's own verdict on each variant, after the agent's oracles. */
  survive?: SurviveFn
}

/** A variant as it ended, before it is graded and judged. */
export interface PlayedCrashVariant {
  run: Run
  error: unknown
  /** Whether the agent made the call the fault stands in for. */
  injected: boolean
}

/**
 * The run's `module` entry point, or the error saying why crash-test tasks cannot start it: none at all
 * (`E_REPLAY_NO_ENTRY`), or a test's, whose cells its own test runs (`runCrashMatrix`, or `crashTest()`
 * beside that test), not task files.
 *
 * @example
 * const entry = crashEntryOf(store.load('last'))
 */
export function crashEntryOf(parent: Run): ModuleEntryPoint {
  const entry = parent.entryPoint
  if (!entry) throw noEntryPointError(parent)
  if (entry.kind !== 'module')
    throw new CrashlabError(
      'E_REPLAY_NO_ENTRY',
      `run ${parent.id} (${parent.name}) comes from the test "${entry.test}" (${entry.file}), which runs its crash cells itself: ` +
        `drop --vitest (\`crashlab crash-test ${parent.id}\`), or add \`crashTest()\` from 'crashlab/vitest' beside that test.`,
      { subject: parent.id },
    )
  return entry
}

/**
 * Runs the agent once in a replay of `parent` where the call recorded at `cell.step` gets `cell.fault`
 * instead; the rest is served from the recording. The caller holds the interceptor (`interceptHostsOf`)
 * around it. Not graded: see `judgeCrashVariant`.
 *
 * @example
 * const played = await playCrashVariant(run, { step: 0, fault: { kind: 'rate_limit' } }, context)
 */
export async function playCrashVariant(
  parent: Run,
  cell: CrashCell,
  context: Pick<CrashVariantContext, 'prepared' | 'fn' | 'sourcePath'>,
): Promise<PlayedCrashVariant> {
  const ended = await runAgent(
    {
      prepared: context.prepared,
      session: {
        mode: 'replay',
        recorded: parent,
        cassettePath: context.sourcePath,
        // The agent may give up after the fault: what it leaves unused is not a failure by itself.
        allowUnused: true,
        inject: faultInjection(cell.fault, cell.step),
        onWarning: () => {},
      },
      input: parent.input,
      entryPoint: crashEntryOf(parent),
      metadata: { ...parent.metadata },
      finishRule: 'replay',
    },
    context.fn,
  )
  return { run: ended.run, error: ended.error, injected: ended.session.injectedAt !== undefined }
}

/**
 * Grades a played variant with the agent's oracles, judges it (`judgeVariant`) and stores it, tagged
 * `crash-test`. Call it once the interceptor is closed: an oracle's own calls are not the variant's,
 * and a replay's interceptor would refuse them.
 *
 * @example
 * const result = await judgeCrashVariant(run, cell, played, { store })
 */
export async function judgeCrashVariant(
  parent: Run,
  cell: CrashCell,
  played: PlayedCrashVariant,
  context: Pick<CrashVariantContext, 'store' | 'tags' | 'survive'>,
): Promise<CrashCellResult> {
  let run = played.run
  if (registeredOracles(parent.name).length > 0) run = (await applyOracles(run, { agent: parent.name })).run
  const judged = judgeVariant(run, cell.fault, {
    error: played.error,
    injected: played.injected,
    survive: context.survive,
  })
  const stored = context.store?.save(run, { tags: ['crash-test', ...(context.tags ?? [])] })
  return { ...cell, ...judged, runId: stored?.id ?? run.id }
}

/**
 * One cell of a crash test, whole: plays the variant inside its own handle on the replay interceptor,
 * closes the handle, then grades, judges and stores it (`judgeCrashVariant`). A caller that runs many
 * cells loads the entry point once (`loadEntry`, with an interceptor started first, so that a client the
 * module builds at load time sees it) and releases that interceptor before the cells, so that each cell's
 * grading runs with none; `runCrashMatrix` holds one over all the cells instead and grades them after.
 *
 * @example
 * const cell = await runCrashVariant(run, { step: 2, fault: { kind: 'rate_limit' } }, { prepared, fn, store })
 * cell.outcome // 'survived'
 */
export async function runCrashVariant(
  parent: Run,
  cell: CrashCell,
  context: CrashVariantContext,
): Promise<CrashCellResult> {
  const interceptor = interceptHostsOf(parent, {
    outsideSession: 'replay',
    allowHosts: context.prepared.config.allowHosts,
  })
  let played: PlayedCrashVariant
  try {
    played = await playCrashVariant(parent, cell, context)
  } finally {
    await interceptor.close()
  }
  return judgeCrashVariant(parent, cell, played, context)
}

/**
 * The context of a crash test's cells run one by one (`runCrashVariant`): the config and the run's
 * checks prepared, and the entry point loaded once, inside a replay interceptor started first (a client
 * the module builds at load time sees it) and released after, so that each cell holds its own.
 *
 * @example
 * const context = await prepareCrashVariants(run, { cwd: process.cwd(), store })
 * for (const cell of crashCells(run, faults)) await runCrashVariant(run, cell, context)
 */
export async function prepareCrashVariants(
  parent: Run,
  options: Omit<CrashVariantContext, 'prepared' | 'fn'> & { cwd?: string; config?: string | false },
): Promise<CrashVariantContext> {
  const entry = crashEntryOf(parent)
  const { cwd = process.cwd(), config, ...rest } = options
  const prepared = await prepareAgentRun({ cwd, config, checks: storedChecks(parent) })
  const interceptor = interceptHostsOf(parent, {
    outsideSession: 'replay',
    allowHosts: prepared.config.allowHosts,
  })
  try {
    return { ...rest, prepared, fn: await loadEntry(entry, cwd) }
  } finally {
    await interceptor.close()
  }
}
