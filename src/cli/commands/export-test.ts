import { relative } from 'node:path'
import { defineCommand } from 'citty'
import { exportTest } from '../../replay/index.ts'
import { configRedactor } from '../internal/config-redactor.ts'
import { reportError } from '../internal/report-error.ts'
import { STORE_DIR_ARG, withStore } from '../internal/store-args.ts'

/**
 * `crashlab export-test <id> -o dir`: a stored run as a Vitest regression test plus its cassette, which
 * replays the run and asserts its check results and findings; `crashlab vitest --exported` runs them.
 */
export const exportTestCommand = defineCommand({
  meta: {
    name: 'export-test',
    description:
      'Write a Vitest regression test and its cassette for a stored run (run them with `crashlab vitest --exported`)',
  },
  args: {
    run: { type: 'positional', description: 'a run id, a unique prefix, or `last`', required: true },
    output: {
      type: 'string',
      alias: 'o',
      description: 'the folder the test goes to',
      valueHint: 'dir',
      required: true,
    },
    ...STORE_DIR_ARG,
    import: {
      type: 'string',
      description: "where the test imports crashlabReplay from (default 'crashlab/vitest')",
      valueHint: 'module',
    },
  },
  async run({ args }) {
    try {
      const redactor = await configRedactor()
      const written = await withStore(args.dir, (store) => {
        const run = store.load(args.run)
        const paths = exportTest(run, {
          dir: args.output,
          storeDir: store.dir,
          ...(args.import && { importFrom: args.import }),
          ...(redactor && { redactor }),
        })
        return { ...paths, id: run.id }
      })
      const rel = (p: string) => relative(process.cwd(), p) || p
      console.log(`wrote the regression test of run ${written.id}:`)
      console.log(`  ${rel(written.testPath)}`)
      console.log(`  ${rel(written.cassettePath)} (redacted)`)
      console.log('run it with `npx crashlab vitest --exported`')
    } catch (err) {
      reportError(err)
    }
  },
})
