import { checkCaseFile } from '../internal/check-case-file.ts'
import { defineCommand } from '../internal/command.ts'
import { configRedactor } from '../internal/config-redactor.ts'
import { usageError } from '../internal/parse-options.ts'
import { reportError } from '../internal/report-error.ts'

/**
 * `crashlab validate <file>`: exit 0 when the AgentCase or cassette is valid, 1 with the error and its
 * code. It makes every check `crashlab import` makes (the same `checkCaseFile`), so a file it accepts
 * imports.
 */
export const validate = defineCommand({
  meta: {
    name: 'validate',
    description: 'Check an .agentcase file or a crashlab cassette (exit 1 when invalid)',
  },
  args: {
    file: { type: 'positional', description: 'an .agentcase file or a cassette (.json)', required: true },
    'max-bytes': { type: 'string', description: 'size limit in bytes (default 16 MiB)', valueHint: 'n' },
  },
  async run({ args }) {
    try {
      const maxBytes = parseMaxBytes(args['max-bytes'])
      const redactor = await configRedactor()
      const { file } = checkCaseFile(args.file, {
        ...(maxBytes === undefined ? {} : { maxBytes }),
        ...(redactor ? { redactor } : {}),
        tags: ['imported'],
      })
      const what = file.kind === 'agentcase' ? 'AgentCase 0.1' : `crashlab cassette v${file.value.version}`
      console.log(`✓ ${args.file}: valid ${what}`)
    } catch (err) {
      reportError(err)
    }
  },
})

/** Reads `--max-bytes`: a whole number of bytes above 0 (`E_CLI_USAGE` otherwise); undefined when not given. */
export function parseMaxBytes(value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!Number.isSafeInteger(n) || n <= 0) {
    throw usageError(
      `--max-bytes must be a positive whole number of bytes; got ${JSON.stringify(value.slice(0, 40))}`,
    )
  }
  return n
}
