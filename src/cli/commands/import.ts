import { closeSync, openSync, readSync } from 'node:fs'
import { loadConfig } from '../../config/load-config.ts'
import { CrashlabError } from '../../errors.ts'
import { checkCaseFile } from '../internal/check-case-file.ts'
import { defineCommand } from '../internal/command.ts'
import { configRedactor } from '../internal/config-redactor.ts'
import { reportError } from '../internal/report-error.ts'
import { STORE_DIR_ARG, withStore } from '../internal/store-args.ts'

/** What `crashlab import` reads: crashlab's own files, or OpenTelemetry traces (docs/otel.md). */
const FORMATS = ['cassette', 'agentcase', 'otlp', 'openai-agents'] as const
type Format = (typeof FORMATS)[number]

/**
 * `crashlab import <file...>`: crashlab cassettes, `.agentcase` files or traces (OpenTelemetry's OTLP
 * JSON, a document or JSON Lines, or the OpenAI Agents SDK's own trace payload) into the store, redacted
 * on the way in. Each agent trace of a trace file is a run of its own.
 */
export const importRun = defineCommand({
  meta: {
    name: 'import',
    description: 'Import cassettes, .agentcase files or traces (OTLP, the Agents SDK) into the run store',
  },
  args: {
    file: {
      type: 'positional',
      description:
        'a cassette (.json), an .agentcase file, OTLP JSON traces (.json, .jsonl) or an Agents SDK trace payload; several allowed',
      required: true,
    },
    format: {
      type: 'string',
      description: 'cassette, agentcase, otlp or openai-agents (default: told from the file)',
      valueHint: 'format',
    },
    tag: { type: 'string', description: 'tag the imported runs (besides `imported`)', valueHint: 'tag' },
    ...STORE_DIR_ARG,
  },
  async run({ args }) {
    const files = args._.length > 0 ? args._ : [args.file]
    try {
      const forced = formatArg(args.format)
      const redactor = await configRedactor()
      const tags = ['imported', ...(args.tag ? [args.tag] : [])]
      await withStore(args.dir, async (store) => {
        for (const file of files) {
          const format = forced ?? detectFormat(file)
          if (format === 'otlp' || format === 'openai-agents') {
            const { readTraceFile, saveTrace } = await import('../internal/otlp-import.ts')
            const { config } = await loadConfig()
            for (const trace of readTraceFile(file, format)) {
              for (const line of saveTrace(store, trace, {
                tags,
                redactor,
                config,
                from: `imported ${file}`,
              }))
                console.log(line)
            }
            continue
          }
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

function formatArg(value: string | undefined): Format | undefined {
  if (value === undefined) return undefined
  if ((FORMATS as readonly string[]).includes(value)) return value as Format
  throw new CrashlabError(
    'E_CLI_USAGE',
    `--format ${value} is not a format import reads: use ${FORMATS.join(', ')}.`,
    {
      subject: value,
    },
  )
}

/**
 * A file's format, from its start: OTLP JSON opens with `resourceSpans` (a document, or the first line of
 * JSON Lines), an Agents SDK trace payload with `data` and a `trace` object; anything else is left to the
 * cassette and AgentCase reader, which tells those two apart.
 */
function detectFormat(file: string): Format {
  let head = ''
  try {
    const fd = openSync(file, 'r')
    try {
      const buffer = Buffer.alloc(4096)
      head = buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, 0)).toString('utf8')
    } finally {
      closeSync(fd)
    }
  } catch {
    // Unreadable: the case reader names the file and why.
  }
  if (/^\s*\{\s*"resourceSpans"\s*:/.test(head)) return 'otlp'
  if (/^\s*\[?\s*\{\s*"data"\s*:\s*\[\s*\{\s*"object"\s*:\s*"trace/.test(head)) return 'openai-agents'
  return 'cassette'
}
