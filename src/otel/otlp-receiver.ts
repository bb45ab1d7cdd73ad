import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { gunzipSync } from 'node:zlib'
import { CrashlabError } from '../errors.ts'
import { decodeTraceRequest } from './internal/otlp-protobuf.ts'
import { type OtlpSpan, readOtlp } from './read-otlp.ts'
import { type ImportedTrace, tracesToRuns } from './traces-to-runs.ts'

export interface OtlpReceiverOptions {
  /** The port to listen on; 0 picks a free one (see `url`). Default: 4318, OTLP/HTTP's own. */
  port?: number
  /** Default: 127.0.0.1, this machine only. */
  host?: string
  /**
   * How long a trace whose root span arrived waits for more spans before it becomes a run. Default: 2000.
   * A trace without its root waits ten times as long, and at least 30 s.
   */
  flushMs?: number
  /** Called with each agent trace, as a run, once it is complete (and for every trace held at `close`). */
  onTrace: (trace: ImportedTrace) => void | Promise<void>
  /** Called with a complete trace that holds no agent activity (no GenAI, AI SDK or OpenInference span). */
  onSkipped?: (traceId: string) => void
  /** Called when `onTrace` throws; the receiver goes on. Default: the error is dropped. */
  onError?: (error: unknown) => void
}

export interface OtlpReceiver {
  /** Where it listens, as `http://host:port` (the traces are POSTed to `${url}/v1/traces`). */
  url: string
  /** Stops listening, turns every trace still held into a run, and resolves once `onTrace` saw them. */
  close(): Promise<void>
}

/** How long, at least, a trace whose root span has not arrived waits for more spans. */
const ROOTLESS_MS = 30_000

/** A request body larger than this is refused (413): an exporter sends batches far smaller. */
const MAX_BODY_BYTES = 64 * 1024 * 1024

interface HeldTrace {
  spans: OtlpSpan[]
  timer: NodeJS.Timeout | undefined
}

/**
 * An OTLP/HTTP receiver for traces (what an OpenTelemetry SDK's or Collector's OTLP/HTTP exporter
 * posts): `POST /v1/traces` with OTLP JSON (`application/json`) or protobuf (`application/x-protobuf`),
 * gzip or not. Spans are held by trace id, since a trace's spans may come in several requests; a trace
 * becomes a run (through `readOtlp` and `tracesToRuns`) once its root span arrived and no span of it came
 * for `flushMs`, and every trace still held does at `close`. It answers 200 (`{"partialSuccess":{}}`, or
 * an empty protobuf answer), 400 with a message for a body that is not OTLP traces, 415 for another
 * content type, 404 for another path. Listens on loopback unless told otherwise.
 *
 * @example
 * const receiver = await startOtlpReceiver({ port: 4318, onTrace: (t) => store.save(t.run) })
 * // OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf node agent.js
 * await receiver.close()
 */
export async function startOtlpReceiver(options: OtlpReceiverOptions): Promise<OtlpReceiver> {
  const host = options.host ?? '127.0.0.1'
  const flushMs = options.flushMs ?? 2000
  const rootlessMs = Math.max(flushMs * 10, ROOTLESS_MS)
  const held = new Map<string, HeldTrace>()
  const pending = new Set<Promise<void>>()

  const flush = (traceId: string) => {
    const trace = held.get(traceId)
    if (!trace) return
    clearTimeout(trace.timer)
    held.delete(traceId)
    const imported = tracesToRuns(trace.spans)
    if (imported.length === 0) options.onSkipped?.(traceId)
    for (const t of imported) {
      const done = Promise.resolve()
        .then(() => options.onTrace(t))
        .catch((error: unknown) => options.onError?.(error))
        .finally(() => pending.delete(done))
      pending.add(done)
    }
  }

  const accept = (spans: OtlpSpan[]) => {
    for (const span of spans) {
      let trace = held.get(span.traceId)
      if (!trace) {
        trace = { spans: [], timer: undefined }
        held.set(span.traceId, trace)
      }
      trace.spans.push(span)
    }
    // The quiet period starts again with each span of a trace. A trace whose root never comes (it is
    // another service's, or it was lost) waits longer, but is not held forever.
    for (const traceId of new Set(spans.map((s) => s.traceId))) {
      const trace = held.get(traceId) as HeldTrace
      const rooted = trace.spans.some((s) => s.parentSpanId === null)
      clearTimeout(trace.timer)
      trace.timer = setTimeout(() => flush(traceId), rooted ? flushMs : rootlessMs)
      trace.timer.unref()
    }
  }

  const server = createServer((req, res) => {
    handle(req, res, accept).catch((error: unknown) => {
      answer(res, 500, { message: `[crashlab] the receiver failed: ${(error as Error).message}` })
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        new CrashlabError(
          'E_OTLP_RECEIVE',
          `cannot listen on ${host}:${options.port ?? 4318} (${error.code ?? error.message}). ` +
            'Pick another port (--otlp 0 picks a free one) or stop what uses it.',
          { subject: `${host}:${options.port ?? 4318}`, cause: error },
        ),
      )
    })
    server.listen(options.port ?? 4318, host, () => resolve())
  })
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : (options.port ?? 4318)
  let closing: Promise<void> | undefined
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve())
          server.closeAllConnections()
        })
        for (const traceId of [...held.keys()]) flush(traceId)
        while (pending.size > 0) await Promise.all([...pending])
      })()
      return closing
    },
  }
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  accept: (spans: OtlpSpan[]) => void,
): Promise<void> {
  const path = (req.url ?? '/').split('?')[0]
  if (path !== '/v1/traces') {
    req.resume()
    return answer(res, 404, { message: `[crashlab] no ${path} here: OTLP traces go to POST /v1/traces` })
  }
  if (req.method !== 'POST') {
    req.resume()
    return answer(res, 405, { message: '[crashlab] OTLP traces are sent with POST' })
  }
  const type = String(req.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase()
  const protobuf = type === 'application/x-protobuf'
  if (type !== 'application/json' && !protobuf) {
    req.resume()
    return answer(res, 415, {
      message:
        `[crashlab] content type ${JSON.stringify(type)} is not read here: send OTLP traces as ` +
        'application/json (OTLP JSON) or application/x-protobuf',
    })
  }
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > MAX_BODY_BYTES) return answer(res, 413, { message: '[crashlab] the request is too large' })
    chunks.push(chunk as Buffer)
  }
  let body = Buffer.concat(chunks)
  let spans: OtlpSpan[]
  try {
    if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body)
    spans = readOtlp(protobuf ? protobufAsJson(body) : body.toString('utf8'), 'the request')
  } catch (error) {
    return answer(res, 400, { code: 3, message: (error as Error).message }, protobuf)
  }
  accept(spans)
  answer(res, 200, { partialSuccess: {} }, protobuf)
}

/** A protobuf request as the OTLP JSON that `readOtlp` reads. */
function protobufAsJson(body: Uint8Array): string {
  try {
    return JSON.stringify(decodeTraceRequest(body))
  } catch (cause) {
    throw new CrashlabError(
      'E_OTLP_MALFORMED',
      `the request is not an OTLP protobuf trace export (${(cause as Error).message}).`,
      { cause },
    )
  }
}

/**
 * The answer, in the request's encoding: JSON, or for protobuf an empty `ExportTraceServiceResponse` on
 * success and a `google.rpc.Status` (1 code, 2 message) on failure, as OTLP/HTTP asks.
 */
function answer(
  res: ServerResponse,
  status: number,
  body: { code?: number; message?: string; partialSuccess?: object },
  protobuf = false,
): void {
  if (res.headersSent) return
  if (!protobuf) {
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(JSON.stringify(body))
    return
  }
  res.writeHead(status, { 'content-type': 'application/x-protobuf' })
  if (status === 200) return void res.end()
  const message = Buffer.from(body.message ?? '', 'utf8')
  const length: number[] = []
  for (let n = message.length; ; n >>>= 7) {
    if (n < 0x80) {
      length.push(n)
      break
    }
    length.push((n & 0x7f) | 0x80)
  }
  res.end(Buffer.concat([Buffer.from([0x08, body.code ?? 3, 0x12, ...length]), message]))
}
