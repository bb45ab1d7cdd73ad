import { existsSync, readdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import pc from 'picocolors'
import type { Reporter, TestModule, Vitest } from 'vitest/node'
import { type CrashlabTaskMeta, RECORD_MISSING_COMMAND } from '../fixtures/index.ts'
import { cassetteFolderFor } from './cassette-path.ts'
import { noModelCallWarnings } from './internal/no-model-call-warning.ts'
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
  /** Cassette files of fully-run test files that no test owns any more (like obsolete snapshots). */
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
}

/** How many stale and unused cassette files the summary lists by name. */
const LISTED_FILES = 10

/**
 * crashlab's reporter: a short summary at the end of the run, read from `task.meta.crashlab`: one line
 * with the cassettes recorded, replayed and missing, the tests that ran live, and the cassette files no
 * test owns (stale: its test is live now; unused: no test of its file has its name), then a table of
 * the agent runs (test, outcome, steps, tokens, cost, findings). Silent when no test touched crashlab.
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

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void | Promise<void> {
    this.summarize(testModules)
    // The session's runs go to the store: what the CLI reaches by `crashlab ls --session last`.
    const index = this.options.getIndexOptions?.()
    if (!index) return
    return indexSession(testModules, index, this.startedAt).then((warning) => {
      if (warning) (this.vitest?.logger ?? console).warn(pc.yellow(warning))
    })
  }

  private summarize(testModules: ReadonlyArray<TestModule>): void {
    const mode = this.options.getMode()
    const tally = tallyCassettes(testModules, this.options.getCassetteDir(), mode)
    const rows = runRowsOf(testModules)
    const cassettes =
      tally.recorded + tally.replayed + tally.missing + tally.stale.length + tally.unused.length
    if (cassettes + tally.live + rows.length === 0) return
    const root = this.vitest?.config.root ?? process.cwd()
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
    } else {
      lines.push(`${badge} ${rows.length} agent run${rows.length === 1 ? '' : 's'} ${modeText}`)
    }
    const files = [
      ...tally.stale.map((file) => `stale (test is live): ${relative(root, file)}`),
      ...tally.unused.map((file) => `unused: ${relative(root, file)}`),
    ]
    for (const file of files.slice(0, LISTED_FILES)) lines.push(pc.dim(`  ${file}`))
    if (files.length > LISTED_FILES) lines.push(pc.dim(`  … and ${files.length - LISTED_FILES} more`))
    lines.push(...renderRunTable(rows))
    lines.push(...noModelCallWarnings(testModules))
    const log = this.vitest?.logger ? (m: string) => this.vitest?.logger.log(m) : console.log
    log(`\n${lines.join('\n')}`)
  }
}

/**
 * Counts the cassettes of a run. A test file's cassettes count as unused only when every one of its
 * tests ran (a filtered or skipped run cannot tell an unused cassette from one not reached), and never
 * in mode `off` (nothing reads them). A test that opted out with `live()` owns no cassette: a file
 * under its name is stale, in any run that ran the test.
 *
 * @example
 * const { recorded, replayed, live, stale, unused } = tallyCassettes(testModules, '__cassettes__', 'replay')
 */
export function tallyCassettes(
  testModules: ReadonlyArray<TestModule>,
  cassetteDir?: string,
  mode?: string,
): CassetteTally {
  const tally: CassetteTally = { recorded: 0, replayed: 0, missing: 0, live: 0, stale: [], unused: [] }
  for (const module of testModules) {
    const owned = new Set<string>()
    const stale = new Set<string>()
    let complete = true
    for (const test of module.children.allTests()) {
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
    if (!complete || mode === 'off') continue
    const folder = cassetteFolderFor(module.moduleId, cassetteDir)
    for (const name of listCassettes(folder)) {
      const path = join(folder, name)
      if (!owned.has(path) && !stale.has(path)) tally.unused.push(path)
    }
  }
  return tally
}

function listCassettes(folder: string): string[] {
  try {
    return readdirSync(folder)
      .filter((n) => n.endsWith('.cassette.json'))
      .sort()
  } catch {
    return []
  }
}
