import { writeFileSync } from 'node:fs'
import pc from 'picocolors'
import type { Reporter, TestModule, Vitest } from 'vitest/node'
import type { Run, Trial, TrialMeta, Verification } from '../../src/internal.ts'

/**
 * Options of `CrashlabVerifyReporter`.
 *
 * @example
 * new CrashlabVerifyReporter({ storeDir: '.crashlab', resultFile: '/tmp/verdicts.json' })
 */
export interface VerifyReporterOptions {
  /** Where the verified runs are stored: each verdict is saved on its fix there. */
  storeDir: string
  /** Also writes the verdicts there, as JSON (`{ [runId]: { [fixId]: Verification } }`). */
  resultFile?: string
  /**
   * A round of `crashlab verify --vitest`: the trials of the earlier rounds (they come first, in their
   * order), and the verdict is the sequential rule's so far rather than a fixed plan's final one.
   */
  rounds?: { priorTrials: Trial[] }
}

/**
 * The reporter of `crashlab verify --vitest`: at the end of the run it gathers the trials the verify
 * tasks left on their tests' `meta.crashlabTrial`, draws each fix's verdict (`summarizeVerification`),
 * prints it, and saves it on the fix in the store. A plan run whole (a shard, a merge, the session's
 * verify tasks) is a fixed k: its verdict is final. In rounds (`rounds`), the earlier rounds' trials
 * come first and the verdict is the one so far; the command decides whether another round runs. A shard (`--shard i/n`) sees only its share: it
 * prints the counts so far and saves nothing; `vitest --merge-reports` over the shards' blob reports
 * brings every task back and gives the verdict a single run gives.
 *
 * @example
 * // vitest.config.mjs written by crashlab verify --vitest
 * export default { test: { reporters: ['default', new CrashlabVerifyReporter({ storeDir })] } }
 */
export class CrashlabVerifyReporter implements Reporter {
  private vitest: Vitest | undefined
  private readonly options: VerifyReporterOptions

  constructor(options: VerifyReporterOptions) {
    this.options = options
  }

  onInit(vitest: Vitest): void {
    this.vitest = vitest
  }

  async onTestRunEnd(testModules: ReadonlyArray<TestModule>): Promise<void> {
    const groups = new Map<string, { meta: TrialMeta; trials: Array<{ spec: string; trial: Trial }> }>()
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const meta = test.meta().crashlabTrial
        if (!meta) continue
        const key = `${meta.runId}\u0000${meta.fix.id}`
        const group = groups.get(key) ?? { meta, trials: [] }
        group.trials.push({ spec: meta.spec, trial: meta.trial })
        groups.set(key, group)
      }
    }
    if (groups.size === 0) return
    const { openStore, summarizeVerification } = await import('../../src/on-demand.ts')
    const shard = this.vitest?.config.shard
    const merging = Boolean(this.vitest?.config.mergeReports)
    const badge = pc.bgMagenta(pc.black(' crashlab verify '))
    const out: string[] = ['']
    const verdicts: Record<string, Record<string, Verification>> = {}
    for (const { meta, trials } of groups.values()) {
      // The plan's order, whatever order the tasks (and shards) finished in.
      trials.sort((a, b) => specOrder(a.spec, b.spec))
      const prior = this.options.rounds?.priorTrials ?? []
      const verification = summarizeVerification(
        { k: meta.k, atStep: meta.atStep, control: meta.control },
        [...prior, ...trials.map((t) => t.trial)],
        { fixedK: !this.options.rounds },
      )
      if (shard && !merging) {
        const p = verification.patched
        const c = verification.control
        out.push(
          `${badge} shard ${shard.index}/${shard.count}: ${meta.fix.id} of ${meta.runId}: ${trials.length} trials ` +
            `(patched ${p.passed}/${p.trials} passed${c ? `, control ${c.passed}/${c.trials}` : ''}); ` +
            'merge the shards’ reports for the verdict: `crashlab verify <id> --fix <fix> --merge-reports <dir>`',
        )
        continue
      }
      const byFix = verdicts[meta.runId] ?? {}
      byFix[meta.fix.id] = verification
      verdicts[meta.runId] = byFix
      const colour = { VERIFIED: pc.green, LIKELY: pc.cyan, INCONCLUSIVE: pc.yellow, REJECTED: pc.red }[
        verification.verdict
      ]
      out.push(
        `${badge} ${pc.bold(colour(verification.verdict))} ${meta.fix.id} of ${meta.runId}: ${verification.reason}`,
      )
    }
    console.log(out.join('\n'))
    if (Object.keys(verdicts).length === 0) return
    const store = await openStore({ dir: this.options.storeDir })
    try {
      for (const [runId, byFix] of Object.entries(verdicts)) {
        const run: Run = store.load(runId)
        const fixes = [...run.fixes]
        for (const [fixId, verification] of Object.entries(byFix)) {
          const meta = [...groups.values()].find(
            (g) => g.meta.runId === runId && g.meta.fix.id === fixId,
          )?.meta
          const at = fixes.findIndex((f) => f.id === fixId)
          const fix = { ...(at >= 0 ? fixes[at] : meta?.fix), verification } as Run['fixes'][number]
          if (at >= 0) fixes[at] = fix
          else fixes.push(fix)
        }
        store.save({ ...run, fixes: fixes.sort((a, b) => a.rank - b.rank) })
      }
    } finally {
      store.close()
    }
    if (this.options.resultFile) writeFileSync(this.options.resultFile, JSON.stringify(verdicts, null, 2))
  }
}

const ARM_ORDER = ['patched', 'control', 'regress', 'regress-control']

/** The plan's order: round by round (the number at the end), and within a round by arm, then by name. */
function specOrder(a: string, b: string): number {
  const round = (spec: string) => Number(/-(\d+)$/.exec(spec)?.[1] ?? Number.MAX_SAFE_INTEGER)
  const arm = (spec: string) => {
    const i = ARM_ORDER.findIndex(
      (x) => spec.startsWith(`${x}-`) && (x !== 'regress' || !spec.startsWith('regress-control-')),
    )
    return i < 0 ? ARM_ORDER.length : i
  }
  return round(a) - round(b) || arm(a) - arm(b) || a.localeCompare(b)
}
