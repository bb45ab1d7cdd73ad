import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import type { NormalizedRequest } from '../case/schema/normalized.ts'
import { classifyRequest } from '../providers/registry.ts'
import type { ProviderAdapter, ProviderId } from '../providers/types.ts'
import { createRng, type Rng } from './create-rng.ts'
import { buildResponse, responseId, scriptedRequestId } from './internal/build-response.ts'
import { isFaultTurn } from './internal/check-turn.ts'
import { apiErrorBody, type ErrorFamily, errorFamily } from './internal/error-bodies.ts'
import { exchangeSignal, type IncomingCall, pause, readCall, sendJson } from './internal/http-io.ts'
import { createScript, type Script } from './internal/script.ts'
import { faultStatus, serveFault } from './internal/serve-fault.ts'
import { type ReplyPlan, serveReply } from './internal/serve-reply.ts'
import { serveSideRoute } from './internal/side-routes.ts'
import type { ReceivedRequest, ScriptedProvider, ScriptedProviderOptions } from './types.ts'

const DEFAULT_MODEL = 'scripted-model'

/**
 * Starts an LLM provider on loopback that speaks OpenAI chat, OpenAI Responses, Anthropic Messages and
 * Gemini, plain and streamed, and answers from a script: a list of turns, or a policy computed from
 * each request. It is a real HTTP server, so any SDK or framework talks to it unchanged, with no API
 * key and no network; and it fails on demand (rate limits, gateway pages, timeouts, resets, cut
 * streams, broken JSON) to crash-test how an agent copes.
 *
 * @example
 * import OpenAI from 'openai'
 * import { startScriptedProvider } from 'crashlab/testing'
 *
 * const provider = await startScriptedProvider({
 *   turns: [{ toolCalls: [{ name: 'get_order', args: { order_id: 'A17' } }] }, { text: 'Refunded $49.' }],
 * })
 * const openai = new OpenAI({ baseURL: `${provider.url}/v1`, apiKey: 'test' })
 * // … run the agent with `openai` …
 * provider.requests[1]?.normalized?.messages.at(-1)?.role // 'tool'
 * await provider.close()
 */
export async function startScriptedProvider(options: ScriptedProviderOptions): Promise<ScriptedProvider> {
  const script = createScript(options)
  const host = options.host ?? '127.0.0.1'
  const server = createServer()
  const sockets = new Set<Socket>()
  const closing = new AbortController()
  const exchange = new Exchange(options, script, closing.signal)

  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  })
  server.on('request', (req, res) => void exchange.handle(req, res))
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const { port } = server.address() as AddressInfo
  exchange.origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`

  let closed: Promise<void> | undefined
  return {
    url: exchange.origin,
    port,
    requests: exchange.requests,
    close() {
      closed ??= new Promise<void>((resolve) => {
        // Stop every pending delay and stream first, then drop every connection: keep-alive sockets,
        // timeouts held open on purpose and streams mid-way would otherwise keep close() waiting.
        closing.abort()
        server.close(() => resolve())
        for (const socket of sockets) socket.destroy()
      })
      return closed
    },
  }
}

/** The request handler and its state: what was received, how many model calls, the generator. */
class Exchange {
  readonly requests: ReceivedRequest[] = []
  origin = ''
  /** Each exchange's record, so that a failure mid-answer is written on the right request. */
  private readonly received = new WeakMap<ServerResponse, ReceivedRequest>()
  private modelCalls = 0
  private readonly options: ScriptedProviderOptions
  private readonly script: Script
  private readonly closing: AbortSignal
  private readonly rng: Rng
  private readonly defaultModel: string

  constructor(options: ScriptedProviderOptions, script: Script, closing: AbortSignal) {
    this.options = options
    this.script = script
    this.closing = closing
    this.rng = createRng(options.seed ?? 0)
    this.defaultModel = options.model ?? DEFAULT_MODEL
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const signal = exchangeSignal(res, this.closing)
    try {
      const call = await readCall(req, this.origin)
      const kind = classifyRequest({ method: call.wire.method, url: call.wire.url })
      if (kind.kind === 'http') {
        const record = this.record(res, call, null, null, null, false)
        record.answer = { kind: 'http', status: serveSideRoute(res, call, this.defaultModel) }
        return
      }
      await this.modelCall(call, kind.adapter, res, signal)
    } catch (err) {
      // A bug here must not hang the client nor crash the test process: answer what can be answered.
      const message = `[crashlab] scripted provider failed: ${err instanceof Error ? err.message : String(err)}`
      const record = this.received.get(res)
      if (record) record.answer = { kind: 'error', status: 500, code: 'internal', message }
      if (res.headersSent) res.destroy()
      else sendJson(res, 500, apiErrorBody('openai', 500, 'server', message), { 'x-should-retry': 'false' })
    }
  }

  private async modelCall(
    call: IncomingCall,
    adapter: ProviderAdapter,
    res: ServerResponse,
    signal: AbortSignal,
  ): Promise<void> {
    const family = errorFamily(adapter.id, call.pathname, call.headers)
    let normalized: NormalizedRequest
    try {
      if (call.wire.body === null) throw new Error('the body is not JSON')
      normalized = adapter.normalizeRequest(call.wire)
    } catch (err) {
      const record = this.record(res, call, null, adapter.id, null, false)
      const reason = err instanceof Error ? err.message : String(err)
      const message = `[crashlab] scripted provider: cannot read the ${adapter.id} request ${call.wire.method} ${call.path}: ${reason}`
      this.refuse(res, record, family, 400, 'E_SCRIPT_REQUEST', message)
      return
    }
    const stream = adapter.isStreaming(call.wire)
    const index = this.modelCalls++
    const record = this.record(res, call, index, adapter.id, normalized, stream)
    const earlier = this.requests.slice(0, this.requests.indexOf(record))
    const ctx = { rng: this.rng, index, api: adapter.id, model: normalized.model, stream, requests: earlier }
    const outcome = await this.script.next(normalized, ctx, {
      index,
      what: `${adapter.id} ${call.wire.method} ${call.path}`,
    })
    if ('error' in outcome) {
      this.refuse(res, record, family, 500, outcome.error.code, outcome.error.message)
      return
    }
    const turn = outcome.turn
    const response = buildResponse(turn, {
      index,
      api: adapter.id,
      request: normalized,
      defaultModel: this.defaultModel,
    })
    const headers = requestIdHeaders(adapter.id, index)
    const reply: ReplyPlan = {
      adapter,
      response,
      writeOptions: { id: responseId(adapter.id, index), request: normalized },
      stream,
      headers,
      chunkDelayMs: turn.chunkDelayMs ?? this.options.chunkDelayMs ?? 0,
      chunkSize: turn.chunkSize,
      signal,
    }
    record.answer = isFaultTurn(turn)
      ? { kind: 'fault', status: faultStatus(turn.fault), turn, fault: turn.fault }
      : { kind: 'reply', status: 200, turn, response }
    await pause(turn.delayMs ?? this.options.latencyMs ?? 0, signal)
    if (signal.aborted) return
    if (isFaultTurn(turn)) {
      const model = response.model ?? this.defaultModel
      await serveFault(res, turn.fault, { family, model, headers, reply, signal })
    } else {
      await serveReply(res, reply)
    }
  }

  private refuse(
    res: ServerResponse,
    record: ReceivedRequest,
    family: ErrorFamily,
    status: number,
    code: string,
    message: string,
  ): void {
    const text = `${message} [${code}]`
    record.answer = { kind: 'error', status, code, message }
    // `x-should-retry: false`: the OpenAI and Anthropic SDKs would otherwise retry a 500 twice, and
    // a script error does not go away on retry.
    sendJson(
      res,
      status,
      apiErrorBody(family, status, status === 400 ? 'invalid_request' : 'server', text, code),
      {
        'x-should-retry': 'false',
      },
    )
  }

  private record(
    res: ServerResponse,
    call: IncomingCall,
    index: number | null,
    api: ProviderId | null,
    normalized: NormalizedRequest | null,
    stream: boolean,
  ): ReceivedRequest {
    const record: ReceivedRequest = {
      index,
      method: call.wire.method,
      path: call.path,
      headers: call.headers,
      body: call.wire.body,
      api,
      normalized,
      stream,
      answer: null,
    }
    this.requests.push(record)
    this.received.set(res, record)
    return record
  }
}

function requestIdHeaders(api: ProviderId, index: number): Record<string, string> {
  if (api === 'anthropic-messages') return { 'request-id': scriptedRequestId(index) }
  if (api === 'gemini') return {}
  return { 'x-request-id': scriptedRequestId(index) }
}
