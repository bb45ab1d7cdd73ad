import { loadConfig } from '../../config/load-config.ts'
import { defineCommand } from '../internal/command.ts'
import { configRedactor } from '../internal/config-redactor.ts'
import { parsePositiveInt, usageError } from '../internal/parse-options.ts'
import { reportError, reportUnexpected } from '../internal/report-error.ts'
import { STORE_DIR_ARG, withStore } from '../internal/store-args.ts'

/**
 * `crashlab receive --otlp <port>`: an OTLP/HTTP receiver on loopback that stores each agent trace an
 * OpenTelemetry exporter posts to it as a run, redacted, until Ctrl-C. The server is `startOtlpReceiver`
 * (src/otel); storing is `saveTrace`, as `crashlab import` stores a trace file's runs.
 */
export const receive = defineCommand({
  meta: {
    name: 'receive',
    description:
      'Receive OpenTelemetry traces over OTLP/HTTP (JSON or protobuf) and store each agent trace as a run',
  },
  args: {
    otlp: {
      type: 'string',
      description: 'the port to listen on for OTLP/HTTP (4318 is its own; 0 picks a free one)',
      valueHint: 'port',
      required: true,
    },
    host: {
      type: 'string',
      description: 'the address to listen on (default: 127.0.0.1, this machine only)',
      valueHint: 'host',
    },
    ...STORE_DIR_ARG,
    tag: { type: 'string', description: 'tag the stored runs (besides `received`)', valueHint: 'tag' },
    'flush-ms': {
      type: 'string',
      description: 'how long a trace waits for more spans once its root span arrived (default: 2000)',
      valueHint: 'ms',
    },
  },
  async run({ args }) {
    try {
      const port = portArg(args.otlp)
      const flushMs = parsePositiveInt(args['flush-ms'], '--flush-ms', 2000)
      const redactor = await configRedactor()
      const { config } = await loadConfig()
      const tags = ['received', ...(args.tag ? [args.tag] : [])]
      const { startOtlpReceiver } = await import('../../otel/index.ts')
      const { saveTrace } = await import('../internal/otlp-import.ts')
      await withStore(args.dir, async (store) => {
        let stored = 0
        const receiver = await startOtlpReceiver({
          port,
          flushMs,
          ...(args.host !== undefined && { host: args.host }),
          onTrace(trace) {
            for (const line of saveTrace(store, trace, { tags, redactor, config, from: 'received' }))
              console.log(line)
            stored++
          },
          onSkipped: (traceId) => console.log(`received trace ${traceId}: no agent span in it, not stored`),
          onError: reportUnexpected,
        })
        console.log(
          `listening for OTLP/HTTP traces on ${receiver.url}/v1/traces (OTLP JSON or protobuf), storing runs in ${store.dir}; ` +
            'Ctrl-C stops',
        )
        await stopSignal()
        await receiver.close()
        console.log(`stopped: ${stored} run${stored === 1 ? '' : 's'} stored`)
      })
    } catch (err) {
      reportError(err)
    }
  },
})

function portArg(value: string | undefined): number {
  const port = Number(value)
  if (value === undefined || !/^\d+$/.test(value) || port > 65535)
    throw usageError(`--otlp takes a port, 0 to 65535 (0 picks a free one); got ${JSON.stringify(value)}`)
  return port
}

/** Resolves on the first SIGINT or SIGTERM, so that the traces still held are stored before exiting. */
function stopSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
      resolve()
    }
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
  })
}
