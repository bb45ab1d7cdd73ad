import { writeFileSync } from 'node:fs'
import pc from 'picocolors'
import type { Reporter, TestModule, Vitest } from 'vitest/node'
import type { CrashTaskMeta } from '../../src/internal.ts'
import type { CrashCellResult } from '../../src/on-demand.ts'

/**
 * Options of `CrashlabCrashReporter`.
 *
 * @example
 * new CrashlabCrashReporter({ storeDir: '.crashlab', resultFile: '/tmp/matrix.json' })
 */
export interface CrashReporterOptions {
  /** Where the crash-tested run is stored (the matrix names its steps). */
  storeDir: string
  /** Also writes the matrix there, as JSON (`{ runId, cells }`). */
  resultFile?: string
}

/**
 * The reporter of `crashlab crash-test <run> --vitest`: at the end of the run it gathers the cells the
 * crash-test tasks left on their tests' `meta.crashlabCrashCell`, puts them in the matrix's order (their
 * `index`, whatever order the tasks and shards finished in), and prints the matrix. A shard
 * (`--shard i/n`) sees only its share: it prints its counts and how to merge; `vitest --merge-reports`
 * over the shards' blob reports brings every cell back and gives the matrix of one run.
 *
 * @example
 * // vitest.config.mjs written by crashlab crash-test --vitest
 * export default { test: { reporters: ['default', new CrashlabCrashReporter({ storeDir })] } }
 */
export class CrashlabCrashReporter implements Reporter {
  private vitest: Vitest | undefined
  private readonly options: CrashReporterOptions

  constructor(options: CrashReporterOptions) {
    this.options = options
  }

  onInit(vitest: Vitest): void {
    this.vitest = vitest
  }

  async onTestRunEnd(testModules: ReadonlyArray<TestModule>): Promise<void> {
    const metas: CrashTaskMeta[] = []
    for (const module of testModules)
      for (const test of module.children.allTests()) {
        const meta = test.meta().crashlabCrashCell
        if (meta) metas.push(meta)
      }
    if (metas.length === 0) return
    const runId = (metas[0] as CrashTaskMeta).runId
    const ordered = metas.filter((m) => m.runId === runId).sort((a, b) => a.index - b.index)
    const cells: CrashCellResult[] = ordered.map(({ step, fault, outcome, detail, variantId }) => ({
      step,
      fault,
      outcome,
      detail,
      runId: variantId,
    }))
    const badge = pc.bgMagenta(pc.black(' crashlab crash-test '))
    const shard = this.vitest?.config.shard
    if (shard && !this.vitest?.config.mergeReports) {
      const count = (outcome: CrashCellResult['outcome']) => cells.filter((c) => c.outcome === outcome).length
      console.log(
        `\n${badge} shard ${shard.index}/${shard.count}: ${cells.length} cells (${count('survived')} survived, ` +
          `${count('failed')} failed, ${count('diverged')} diverged); merge the shards' reports for the matrix: ` +
          `crashlab crash-test ${runId} --merge-reports <dir>`,
      )
      return
    }
    const { openStore, renderCrashMatrix } = await import('../../src/on-demand.ts')
    const store = await openStore({ dir: this.options.storeDir })
    try {
      const run = store.load(runId)
      console.log(
        `\n${badge} crash test of run ${run.id} (${run.name})\n${renderCrashMatrix(cells, run, { colors: pc })}`,
      )
    } finally {
      store.close()
    }
    if (this.options.resultFile)
      writeFileSync(this.options.resultFile, JSON.stringify({ runId, cells }, null, 2))
  }
}
