import { defineCommand } from '../internal/command.ts'
import { loadCaseFile } from '../internal/load-case-file.ts'
import { reportError } from '../internal/report-error.ts'
import { formatSummary, summarize } from '../internal/summarize.ts'
import { parseMaxBytes } from './validate.ts'

/** `crashlab inspect <file>`: outcome, completeness, counts by event or step type, redaction, provenance. */
export const inspect = defineCommand({
  meta: { name: 'inspect', description: 'Summarize an .agentcase file or a crashlab cassette' },
  args: {
    file: { type: 'positional', description: 'an .agentcase file or a cassette (.json)', required: true },
    json: { type: 'boolean', description: 'print the summary as JSON' },
    'max-bytes': { type: 'string', description: 'size limit in bytes (default 16 MiB)', valueHint: 'n' },
  },
  run({ args }) {
    try {
      const summary = summarize(loadCaseFile(args.file, { maxBytes: parseMaxBytes(args['max-bytes']) }))
      console.log(args.json ? JSON.stringify(summary, null, 2) : formatSummary(summary))
    } catch (err) {
      reportError(err)
    }
  },
})
