import { resolve } from 'node:path'
import { toAgentCase, writeAgentCase } from '../../case/agentcase/index.ts'
import { writeCassette } from '../../case/cassette-write.ts'
import { defineCommand } from '../internal/command.ts'
import { configRedactor } from '../internal/config-redactor.ts'
import { usageError } from '../internal/parse-options.ts'
import { reportError } from '../internal/report-error.ts'
import { STORE_DIR_ARG, withStore } from '../internal/store-args.ts'

/** `crashlab export <id> -o file [--format cassette|agentcase]`: a stored run as a file, redacted again on the way out. */
export const exportRun = defineCommand({
  meta: {
    name: 'export',
    description: 'Write a stored run to a file (cassette or .agentcase), redacted again',
  },
  args: {
    run: { type: 'positional', description: 'a run id, a unique prefix, or `last`', required: true },
    output: {
      type: 'string',
      alias: 'o',
      description: 'the file to write',
      valueHint: 'file',
      required: true,
    },
    format: {
      type: 'string',
      description: 'cassette (default) or agentcase; .agentcase files default to agentcase',
      valueHint: 'format',
    },
    ...STORE_DIR_ARG,
  },
  async run({ args }) {
    try {
      const out = resolve(args.output)
      const format = args.format ?? (out.endsWith('.agentcase') ? 'agentcase' : 'cassette')
      if (format !== 'cassette' && format !== 'agentcase')
        throw usageError(`--format must be cassette or agentcase; got ${JSON.stringify(format)}`)
      const redactor = await configRedactor()
      const id = await withStore(args.dir, (store) => {
        const run = store.load(args.run)
        if (format === 'agentcase') writeAgentCase(out, toAgentCase(run), redactor ? { redactor } : {})
        else writeCassette(out, run, redactor ? { redactor } : {})
        return run.id
      })
      console.log(`wrote run ${id} to ${out} (${format}, redacted)`)
    } catch (err) {
      reportError(err)
    }
  },
})
