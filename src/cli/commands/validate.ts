import { defineCommand } from 'citty'
import { loadCaseFile } from '../internal/load-case-file.ts'
import { reportError } from '../internal/report-error.ts'

/** `crashlab validate <file>`: exit 0 when the AgentCase or cassette is valid, 1 with the error and its code. */
export const validate = defineCommand({
  meta: {
    name: 'validate',
    description: 'Check an .agentcase file or a crashlab cassette (exit 1 when invalid)',
  },
  args: {
    file: { type: 'positional', description: 'an .agentcase file or a cassette (.json)', required: true },
    'max-bytes': { type: 'string', description: 'size limit in bytes (default 16 MiB)', valueHint: 'n' },
  },
  run({ args }) {
    try {
      const file = loadCaseFile(args.file, { maxBytes: parseMaxBytes(args['max-bytes']) })
      const what = file.kind === 'agentcase' ? 'AgentCase 0.1' : `crashlab cassette v${file.value.version}`
      console.log(`✓ ${args.file}: valid ${what}`)
    } catch (err) {
      reportError(err)
    }
  },
})

export function parseMaxBytes(value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!Number.isInteger(n) || n <= 0) {
    console.error(`[crashlab] --max-bytes must be a positive whole number of bytes, got "${value}"`)
    process.exit(2)
  }
  return n
}
