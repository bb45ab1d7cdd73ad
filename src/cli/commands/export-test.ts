import { relative } from 'node:path'
import { isCrashlabError } from '../../errors.ts'
import { exportTest } from '../../rerun/index.ts'
import { defineCommand } from '../internal/command.ts'
import { configRedactor } from '../internal/config-redactor.ts'
import { reportError } from '../internal/report-error.ts'
import { STORE_DIR_ARG, withStore } from '../internal/store-args.ts'

/**
 * `crashlab export-test <id> -o dir [--fix fix-1|auto] [--entry module#export]`: a stored run as a Vitest
 * regression test plus its cassette, which runs the agent again against the cassette and asserts the
 * run's check results and findings (exit 2, nothing written, when the agent cannot be run again); with `--fix`, a second test
 * replays the verified fix's passing patched fork with the fix re-applied and asserts it passes.
 * `crashlab vitest --exported` runs them.
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
    fix: {
      type: 'string',
      description:
        'also write the passing patched run of a verified fix, replayed with the fix (auto: the best verified fix)',
      valueHint: 'fix-id|auto',
    },
    entry: {
      type: 'string',
      description:
        "the agent the test runs again, for a run whose entry point names none (default: the run's own)",
      valueHint: 'module#export',
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
          ...(args.fix !== undefined && { fix: args.fix, store }),
          ...(args.entry !== undefined && { entry: args.entry }),
        })
        return { ...paths, id: run.id }
      })
      const rel = (p: string) => relative(process.cwd(), p) || p
      const { fix } = written
      console.log(
        fix
          ? `wrote the regression test of run ${written.id} and of its verified fix ${fix.id}:`
          : `wrote the regression test of run ${written.id}:`,
      )
      const entry = `${written.entryPoint.module}#${written.entryPoint.export}`
      console.log(`  ${rel(written.testPath)} (runs the agent ${entry} again against the cassette)`)
      console.log(`  ${rel(written.cassettePath)} (redacted${fix ? '; the run, asserted as it ended' : ''})`)
      if (fix) {
        console.log(
          `  ${rel(fix.cassettePath)} (redacted; fork ${fix.forkId}, replayed with ${fix.id} from step ${fix.atStep}, asserted passing)`,
        )
      }
      console.log('run it with `npx crashlab vitest --exported`')
    } catch (err) {
      reportError(err)
      // A run whose agent cannot be run again is refused, not failed: no test was written.
      if (isCrashlabError(err, 'E_EXPORT_NO_AGENT')) process.exitCode = 2
    }
  },
})
