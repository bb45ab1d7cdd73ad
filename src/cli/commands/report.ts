import { resolve } from 'node:path'
import { canonicalStringify } from '../../case/canonical-json.ts'
import type { Run } from '../../case/schema/run.ts'
import { gridCells, storedCrashCells } from '../../crash/stored-cells.ts'
import { renderTextReport, writeHtmlReport } from '../../report/index.ts'
import type { RunStore, StoredRunSummary } from '../../store/index.ts'
import { defineCommand } from '../internal/command.ts'
import { configRedactor } from '../internal/config-redactor.ts'
import { reportError } from '../internal/report-error.ts'
import { STORE_DIR_ARG, withStore } from '../internal/store-args.ts'

/**
 * `crashlab report <id|last> [--html file]`: the report of a stored run, in the terminal or as one HTML
 * file, with its diagnosis, fixes, verifications and the runs forked from it (the fix attempts).
 */
export const report = defineCommand({
  meta: {
    name: 'report',
    description: 'Report a stored run: text in the terminal, or one self-contained HTML file',
  },
  args: {
    run: { type: 'positional', description: 'a run id, a unique prefix, or `last`', required: true },
    html: { type: 'string', description: 'write the HTML report to this file instead', valueHint: 'file' },
    ...STORE_DIR_ARG,
  },
  async run({ args }) {
    try {
      const redactor = await configRedactor()
      await withStore(args.dir, (store) => {
        const run = store.load(args.run)
        const attempts = fixAttempts(store, run)
        const options = redactor ? { runRef: run.id, redactor, attempts } : { runRef: run.id, attempts }
        if (args.html) {
          const out = resolve(args.html)
          writeHtmlReport(out, run, { ...options, crashCells: gridCells(storedCrashCells(store, run.id)) })
          console.log(`wrote the report of run ${run.id} to ${out}`)
        } else {
          console.log(renderTextReport(run, options))
        }
      })
    } catch (err) {
      reportError(err)
    }
  },
})

/**
 * The stored runs forked from `run` (`fix --try`, `verify` trials, `fork`), oldest first, each with the
 * fix it tried: a tag naming one of the run's fixes, else the fix whose patch the fork applied.
 *
 * @example
 * renderTextReport(run, { attempts: fixAttempts(store, run) })
 */
export function fixAttempts(store: RunStore, run: Run): Array<StoredRunSummary & { fixId: string | null }> {
  const ids = new Set(run.fixes.map((f) => f.id))
  const byPatch = new Map(run.fixes.map((f) => [canonicalStringify(f.patch), f.id]))
  return store
    .list()
    .filter((s) => s.forkedFrom === run.id)
    .reverse()
    .map((s) => {
      let fixId = s.tags.find((t) => ids.has(t)) ?? null
      if (fixId === null && byPatch.size > 0) {
        try {
          const patch = store.load(s.id).links.patch
          if (patch !== undefined) fixId = byPatch.get(canonicalStringify(patch)) ?? null
        } catch {
          // A fork whose cassette cannot be read is still listed, without the fix it tried.
        }
      }
      return { ...s, fixId }
    })
}
