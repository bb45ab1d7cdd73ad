import { existsSync } from 'node:fs'
import { relative } from 'node:path'
import pc from 'picocolors'
import type { Reporter, TestModule, TestRunEndReason, Vitest } from 'vitest/node'
import { type CrashlabTaskMeta, RECORD_MISSING_COMMAND } from '../fixtures/index.ts'
import { type CassetteStore, fileCassetteStore, mayBelongToTest } from '../src/internal.ts'
import { crashSummaryLines } from './internal/crash-summary.ts'
import { noModelCallWarnings } from './internal/no-model-call-warning.ts'
import { type PruneResult, pruneUnused } from './internal/prune.ts'
import { renderRunTable, runRowsOf } from './internal/run-table.ts'
import { indexSession, type SessionIndexOptions } from './internal/session-index.ts'

/**
 * What the reporter counted in one run.
 *
 * @example
 * const tally: CassetteTally = {
 *   recorded: 2, replayed: 5, missing: 0, live: 1,
 *   stale: ['test/__cassettes__/a.test.ts/smoke.cassette.json'],
 *   unused: ['test/__cassettes__/a.test.ts/old.cassette.json'],
 * }
 */
export interface CassetteTally {
  recorded: number
  replayed: number
  /** Tests that needed a cassette in replay mode and had none. */
  missing: number
  /** Tests that ran live: opted out with `live()`, or every test that called something in mode `off`. */
  live: number
  /** Cassette files of tests that opted out with `live()`: the test owns no cassette any more. */
  stale: string[]
  /**
   * Cassettes and `.agentcase` baselines of fully-run test files whose test no longer exists (like
   * Vitest's obsolete snapshots): `crashlab vitest --prune` removes them.
   */
  unused: string[]
}

/**
 * What the reporter reads from the plugin when the run ends.
 *
 * @example
 * const options: CrashlabReporterOptions = { getCassetteDir: () => undefined, getMode: () => 'replay' }
 */
export interface CrashlabReporterOptions {
  getCassetteDir: () => string | undefined
  getMode: () => string
  /** Where the session's runs are indexed; absent (or undefined) indexes nothing. */
  getIndexOptions?: () => SessionIndexOptions | undefined
  /** Whether to remove the unused cassettes and baselines (`crashlab vitest --prune`); absent is no. */
  getPrune?: () => boolean
}

/** How many stale, unused and pruned files the summary lists by name. */
const LISTED_FILES = 10

/**
 * crashlab's reporter: a short summary at the end of the run, read from `task.meta.crashlab`: one line
 * with the cassettes recorded, replayed and missing, the tests that ran live, and the cassette files no
 * test owns (stale: its test is live now; unused: no test of its file has its name), then a table of
 * the agent runs (test, outcome, steps, tokens, cost, findings), then each crash test's matrix (its
 * cells survived, failed and diverged, faults × steps). Silent when no test touched crashlab.
 * With `--prune` (`getPrune`), the unused files are removed after a whole run and the summary says
 * which; after a filtered run it says that nothing was removed, and why.
 *
 * @example
 * new CrashlabReporter({ getCassetteDir: () => '__cassettes__', getMode: () => 'replay' })
 */
export class CrashlabReporter implements Reporter {
  private vitest: Vitest | undefined
  private readonly options: CrashlabReporterOptions
  private startedAt = new Date()

  constructor(options: CrashlabReporterOptions) {
    this.options = options
  }

  onInit(vitest: Vitest): void {
    this.vitest = vitest
  }

  onTestRunStart(): void {
    this.startedAt = new Date()
  }

  async onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    _errors?: unknown,
    reason?: TestRunEndReason,
  ): Promise<void> {
    await this.summarize(testModules, reason)
    // The session's runs go to the store: what the CLI reaches by `crashlab ls --session last`.
    const index = this.options.getIndexOptions?.()
    if (!index) return
    const warning = await indexSession(testModules, index, this.startedAt)
    if (warning) (this.vitest?.logger ?? console).warn(pc.yellow(warning))
  }

  private async summarize(
    testModules: ReadonlyArray<TestModule>,
    reason: TestRunEndReason | undefined,
  ): Promise<void> {
    const mode = this.options.getMode()
    const store = fileCassetteStore({ cassetteDir: this.options.getCassetteDir() })
    const tally = tallyCassettes(testModules, this.options.getCassetteDir(), mode, store)
    const pruned: PruneResult | undefined = this.options.getPrune?.()
      ? pruneUnused(store, tally.unused, this.vitest, reason)
      : undefined
    const rows = runRowsOf(testModules)
    const cassettes =
      tally.recorded + tally.replayed + tally.missing + tally.stale.length + tally.unused.length
    const root = this.vitest?.config.root ?? process.cwd()
    const crashes = await crashSummaryLines(testModules, root)
    // A refused prune is always explained, even in a run that touched nothing else.
    if (cassettes + tally.live + rows.length + crashes.length === 0 && pruned?.refused === undefined) return
    const badge = pc.bgMagenta(pc.black(' crashlab '))
    const modeText = pc.dim(`(mode ${mode})`)
    const lines: string[] = []
    if (cassettes > 0) {
      const parts = [`${tally.recorded} recorded`, `${tally.replayed} replayed`]
      if (tally.missing) parts.push(pc.red(`${tally.missing} missing (record: ${RECORD_MISSING_COMMAND})`))
      if (tally.stale.length) parts.push(pc.yellow(`${tally.stale.length} stale`))
      if (tally.unused.length) parts.push(pc.yellow(`${tally.unused.length} unused`))
      const live = tally.live ? `${tally.live} live · ` : ''
      lines.push(`${badge} ${live}cassettes: ${parts.join(' · ')} ${modeText}`)
    } else if (tally.live) {
      lines.push(`${badge} ${tally.live} live, no cassette read or written ${modeText}`)
    } else if (rows.length > 0) {
      lines.push(`${badge} ${rows.length} agent run${rows.length === 1 ? '' : 's'} ${modeText}`)
    } else if (crashes.length > 0) {
      lines.push(`${badge} crash tests ${modeText}`)
    } else {
      // Only a refused prune to explain.
      lines.push(`${badge} ${modeText}`)
    }
    const removed = new Set(pruned?.removed)
    const files = [
      ...tally.stale.map((file) => `stale (test is live): ${relative(root, file)}`),
      ...tally.unused.map((file) => `${removed.has(file) ? 'pruned' : 'unused'}: ${relative(root, file)}`),
    ]
    for (const file of files.slice(0, LISTED_FILES)) lines.push(pc.dim(`  ${file}`))
    if (files.length > LISTED_FILES) lines.push(pc.dim(`  … and ${files.length - LISTED_FILES} more`))
    if (pruned) lines.push(pruneLine(pruned, tally.unused.length))
    lines.push(...renderRunTable(rows))
    lines.push(...crashes)
    lines.push(...noModelCallWarnings(testModules))
    const log = this.vitest?.logger ? (m: string) => this.vitest?.logger.log(m) : console.log
    log(`\n${lines.join('\n')}`)
  }
}

/** The summary line of `--prune`: what was removed, or why nothing was. */
function pruneLine(pruned: PruneResult, unused: number): string {
  if (pruned.refused !== undefined) {
    const left = unused > 0 ? ` (${unused} unused file${unused === 1 ? '' : 's'} kept)` : ''
    return pc.yellow(
      `  --prune: nothing removed${left}: ${pruned.refused}; only a whole run (no -t, no --shard, no file filter) prunes.`,
    )
  }
  const n = pruned.removed.length
  const failed = pruned.failed.map((f) => pc.red(`  --prune: could not remove ${f.path}: ${f.reason}`))
  if (n === 0 && failed.length === 0) return pc.dim('  --prune: no unused cassette or baseline to remove')
  const done =
    n === 0
      ? []
      : [
          pc.green(
            `  --prune: removed ${n} unused file${n === 1 ? '' : 's'} (cassettes and baselines no test owns)`,
          ),
        ]
  return [...done, ...failed].join('\n')
}

/**
 * Counts the cassettes of a run, and finds the files no test owns. A test file's cassettes and
 * baselines count as unused only when every one of its tests ran (a filtered or skipped run cannot
 * tell an unused file from one not reached) and its collection did not fail, and when no test of the
 * file has the name the file is named after (`mayBelongToTest`); cassettes never in mode `off` (nothing
 * reads them). A test that opted out with `live()` owns no cassette: a file under its name is stale,
 * in any run that ran the test. `store` lists the test files' folders (default: the file-system store
 * with `cassetteDir`).
 *
 * @example
 * const { recorded, replayed, live, stale, unused } = tallyCassettes(testModules, '__cassettes__', 'replay')
 */
export function tallyCassettes(
  testModules: ReadonlyArray<TestModule>,
  cassetteDir?: string,
  mode?: string,
  store: CassetteStore = fileCassetteStore({ cassetteDir }),
): CassetteTally {
  const tally: CassetteTally = { recorded: 0, replayed: 0, missing: 0, live: 0, stale: [], unused: [] }
  for (const module of testModules) {
    const owned = new Set<string>()
    const stale = new Set<string>()
    const names: string[] = []
    // A file that failed to load lists no tests: it cannot say which files are its tests'.
    let complete = typeof module.errors !== 'function' || module.errors().length === 0
    for (const test of module.children.allTests()) {
      names.push(test.fullName)
      const meta = (test.meta() as { crashlab?: CrashlabTaskMeta }).crashlab
      const state = test.result().state
      if (state === 'skipped' || state === 'pending') complete = false
      if (!meta?.cassette) continue
      if (meta.cassette.action === 'passthrough') {
        tally.live++
        // Mode `off` runs every test live for now; only a test that opted out gave its cassette up.
        if (meta.live !== true) owned.add(meta.cassette.path)
        else if (existsSync(meta.cassette.path)) stale.add(meta.cassette.path)
        continue
      }
      owned.add(meta.cassette.path)
      if (meta.cassette.written) tally.recorded++
      else if (meta.cassette.replayed) tally.replayed++
      else if (meta.cassette.missing) tally.missing++
    }
    // Two tests may share a file (names that differ only in letter case): an owner keeps it.
    for (const path of stale) if (!owned.has(path)) tally.stale.push(path)
    if (!complete) continue
    for (const entry of store.list(module.moduleId)) {
      if (entry.kind === 'cassette' && (mode === 'off' || owned.has(entry.path) || stale.has(entry.path)))
        continue
      if (names.some((name) => mayBelongToTest(entry.name, name))) continue
      tally.unused.push(entry.path)
    }
  }
  return tally
}
