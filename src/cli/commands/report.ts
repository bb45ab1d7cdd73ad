import { resolve } from 'node:path'
import { defineCommand } from 'citty'
import { renderTextReport, writeHtmlReport } from '../../report/index.ts'
import { configRedactor } from '../internal/config-redactor.ts'
import { reportError } from '../internal/report-error.ts'
import { STORE_DIR_ARG, withStore } from '../internal/store-args.ts'

/** `crashlab report <id|last> [--html file]`: the report of a stored run, in the terminal or as one HTML file. */
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
        const options = redactor ? { runRef: run.id, redactor } : { runRef: run.id }
        if (args.html) {
          const out = resolve(args.html)
          writeHtmlReport(out, run, options)
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
