import { checkCaseFile } from '../internal/check-case-file.ts'
import { defineCommand } from '../internal/command.ts'
import { configRedactor } from '../internal/config-redactor.ts'
import { reportError } from '../internal/report-error.ts'
import { STORE_DIR_ARG, withStore } from '../internal/store-args.ts'

/** `crashlab import <file...>`: crashlab cassettes or `.agentcase` files into the store (redacted on the way in). */
export const importRun = defineCommand({
  meta: { name: 'import', description: 'Import cassettes or .agentcase files into the run store' },
  args: {
    file: {
      type: 'positional',
      description: 'a cassette (.json) or an .agentcase file; several allowed',
      required: true,
    },
    tag: { type: 'string', description: 'tag the imported runs (besides `imported`)', valueHint: 'tag' },
    ...STORE_DIR_ARG,
  },
  async run({ args }) {
    const files = args._.length > 0 ? args._ : [args.file]
    try {
      const redactor = await configRedactor()
      await withStore(args.dir, (store) => {
        for (const file of files) {
          const tags = ['imported', ...(args.tag ? [args.tag] : [])]
          // The check `crashlab validate` makes: a file it accepts is stored here.
          const { run } = checkCaseFile(file, redactor ? { redactor, tags } : { tags })
          const saved = store.save(run, redactor ? { tags, redactor } : { tags })
          console.log(`imported ${file} as ${saved.id} (${saved.name}, ${saved.steps} steps)`)
        }
      })
    } catch (err) {
      reportError(err)
    }
  },
})
