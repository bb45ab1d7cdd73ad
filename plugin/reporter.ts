import { readdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import pc from 'picocolors'
import type { Reporter, TestModule, Vitest } from 'vitest/node'
import { type CrashlabTaskMeta, RECORD_MISSING_COMMAND } from '../fixtures/index.ts'
import { cassetteFolderFor } from './cassette-path.ts'

/**
 * What the reporter counted in one run.
 *
 * @example
 * const tally: CassetteTally = { recorded: 2, replayed: 5, missing: 0, unused: ['test/__cassettes__/a.test.ts/old.cassette.json'] }
 */
export interface CassetteTally {
  recorded: number
  replayed: number
  /** Tests that needed a cassette in replay mode and had none. */
  missing: number
  /** Cassette files of fully-run test files that no test owns any more (like obsolete snapshots). */
  unused: string[]
}

/**
 * crashlab's reporter: one short summary at the end of the run (cassettes recorded, replayed, and
 * cassette files no test owns), read from `task.meta.crashlab`. Silent when no test touched a cassette.
 *
 * @example
 * new CrashlabReporter({ getCassetteDir: () => '__cassettes__', getMode: () => 'replay' })
 */
export class CrashlabReporter implements Reporter {
  private vitest: Vitest | undefined
  private readonly options: { getCassetteDir: () => string | undefined; getMode: () => string }

  constructor(options: { getCassetteDir: () => string | undefined; getMode: () => string }) {
    this.options = options
  }

  onInit(vitest: Vitest): void {
    this.vitest = vitest
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const tally = tallyCassettes(testModules, this.options.getCassetteDir())
    if (tally.recorded + tally.replayed + tally.missing + tally.unused.length === 0) return
    const root = this.vitest?.config.root ?? process.cwd()
    const parts = [`${tally.recorded} recorded`, `${tally.replayed} replayed`]
    if (tally.missing) parts.push(pc.red(`${tally.missing} missing (record: ${RECORD_MISSING_COMMAND})`))
    if (tally.unused.length) parts.push(pc.yellow(`${tally.unused.length} unused`))
    const lines = [
      `${pc.bgMagenta(pc.black(' crashlab '))} cassettes: ${parts.join(' · ')} ${pc.dim(`(mode ${this.options.getMode()})`)}`,
    ]
    for (const file of tally.unused.slice(0, 10)) lines.push(pc.dim(`  unused: ${relative(root, file)}`))
    if (tally.unused.length > 10) lines.push(pc.dim(`  … and ${tally.unused.length - 10} more`))
    const log = this.vitest?.logger ? (m: string) => this.vitest?.logger.log(m) : console.log
    log(`\n${lines.join('\n')}`)
  }
}

/**
 * Counts the cassettes of a run. A test file's cassettes count as unused only when every one of its
 * tests ran (a filtered or skipped run cannot tell an unused cassette from one not reached).
 *
 * @example
 * const { recorded, replayed, unused } = tallyCassettes(testModules, '__cassettes__')
 */
export function tallyCassettes(testModules: ReadonlyArray<TestModule>, cassetteDir?: string): CassetteTally {
  const tally: CassetteTally = { recorded: 0, replayed: 0, missing: 0, unused: [] }
  for (const module of testModules) {
    const owned = new Set<string>()
    let complete = true
    for (const test of module.children.allTests()) {
      const meta = (test.meta() as { crashlab?: CrashlabTaskMeta }).crashlab
      const state = test.result().state
      if (state === 'skipped' || state === 'pending') complete = false
      if (!meta?.cassette) continue
      owned.add(meta.cassette.path)
      if (meta.cassette.written) tally.recorded++
      else if (meta.cassette.replayed) tally.replayed++
      else if (meta.cassette.missing) tally.missing++
    }
    if (!complete) continue
    const folder = cassetteFolderFor(module.moduleId, cassetteDir)
    for (const name of listCassettes(folder)) {
      const path = join(folder, name)
      if (!owned.has(path)) tally.unused.push(path)
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
