import { resolve } from 'node:path'
import { toAgentCase, writeAgentCase } from '../../case/agentcase/index.ts'
import { writeFileAtomic } from '../../case/atomic-write.ts'
import { writeCassette } from '../../case/cassette-write.ts'
import { defineCommand } from '../internal/command.ts'
import { configRedactor } from '../internal/config-redactor.ts'
import { usageError } from '../internal/parse-options.ts'
import { reportError } from '../internal/report-error.ts'
import { STORE_DIR_ARG, withStore } from '../internal/store-args.ts'

const FORMATS = ['cassette', 'agentcase', 'otlp']

/**
 * `crashlab export <id> -o file [--format cassette|agentcase|otlp]`: a stored run as a file, redacted
 * again on the way out; `--format otlp --endpoint url` sends it to an OTLP/HTTP receiver instead.
 */
export const exportRun = defineCommand({
  meta: {
    name: 'export',
    description:
      'Write a stored run to a file (cassette, .agentcase or OTLP JSON traces), or send it to an OTLP endpoint; redacted again',
  },
  args: {
    run: { type: 'positional', description: 'a run id, a unique prefix, or `last`', required: true },
    output: {
      type: 'string',
      alias: 'o',
      description: 'the file to write (or --endpoint)',
      valueHint: 'file',
    },
    format: {
      type: 'string',
      description:
        'cassette (default), agentcase or otlp; .agentcase files default to agentcase, .otlp.json and .jsonl to otlp',
      valueHint: 'format',
    },
    'include-content': {
      type: 'boolean',
      description: 'otlp: write the messages, tool arguments and results (left out by default)',
    },
    endpoint: {
      type: 'string',
      description: 'otlp: POST the run to this OTLP/HTTP receiver (…/v1/traces) instead of writing a file',
      valueHint: 'url',
    },
    header: {
      type: 'string',
      description: 'otlp: headers for --endpoint, as k=v,k2=v2',
      valueHint: 'headers',
    },
    ...STORE_DIR_ARG,
  },
  async run({ args }) {
    try {
      if (args.output !== undefined && args.endpoint !== undefined)
        throw usageError('give -o file or --endpoint url, not both')
      if (args.output === undefined && args.endpoint === undefined)
        throw usageError('`crashlab export` needs -o file (or --endpoint url with --format otlp)')
      const out = args.output === undefined ? undefined : resolve(args.output)
      const format = args.format ?? defaultFormat(out)
      if (!FORMATS.includes(format))
        throw usageError(`--format must be cassette, agentcase or otlp; got ${JSON.stringify(format)}`)
      if (format !== 'otlp') {
        if (args['include-content']) throw usageError('--include-content is for --format otlp')
        if (args.endpoint !== undefined || args.header !== undefined)
          throw usageError('--endpoint and --header are for --format otlp')
      }
      const headers = headersArg(args.header)
      const redactor = await configRedactor()
      const content = args['include-content'] ? ', with content' : ''
      const line = await withStore(args.dir, async (store) => {
        const run = store.load(args.run)
        if (format === 'otlp') {
          const { exportRunsOtlpHttp, runsToOtlp } = await import('../../otel/index.ts')
          const options = { includeContent: args['include-content'] === true, ...(redactor && { redactor }) }
          if (out === undefined) {
            const { url } = await exportRunsOtlpHttp([run], {
              ...options,
              endpoint: String(args.endpoint),
              headers,
            })
            return `sent run ${run.id} to ${url} (otlp${content}, redacted)`
          }
          // One line: the file is an OTLP JSON document and JSON Lines at once.
          writeFileAtomic(out, `${JSON.stringify(runsToOtlp([run], options))}\n`)
          return `wrote run ${run.id} to ${out} (otlp${content}, redacted)`
        }
        const target = out as string
        if (format === 'agentcase') writeAgentCase(target, toAgentCase(run), redactor ? { redactor } : {})
        else writeCassette(target, run, redactor ? { redactor } : {})
        return `wrote run ${run.id} to ${target} (${format}, redacted)`
      })
      console.log(line)
    } catch (err) {
      reportError(err)
    }
  },
})

function defaultFormat(out: string | undefined): string {
  if (out === undefined) return 'otlp'
  if (out.endsWith('.agentcase')) return 'agentcase'
  return out.endsWith('.otlp.json') || out.endsWith('.jsonl') ? 'otlp' : 'cassette'
}

/** `k=v,k2=v2`, the form of OTEL_EXPORTER_OTLP_HEADERS. */
function headersArg(value: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {}
  if (value === undefined) return headers
  for (const pair of value.split(',')) {
    const eq = pair.indexOf('=')
    const key = pair.slice(0, eq).trim()
    if (eq <= 0 || key === '')
      throw usageError(`--header takes k=v pairs separated by commas; got ${JSON.stringify(pair)}`)
    headers[key] = pair.slice(eq + 1).trim()
  }
  return headers
}
