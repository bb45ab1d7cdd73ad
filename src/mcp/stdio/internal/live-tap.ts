import type { ChildProcess } from 'node:child_process'
import type { Readable, Writable } from 'node:stream'
import {
  isJsonRpcRequest,
  type JsonRpcMessage,
  type JsonRpcRequest,
  OPENING_METHODS,
  parseJsonRpcLine,
} from '../json-rpc.ts'
import type { StdioMessageEvent, StdioServer } from '../types.ts'
import { LineSplitter } from './line-splitter.ts'
import { MISS_ERROR_CODE } from './miss-error.ts'

/** The longest first line a client may write before the tap decides the process is no MCP server. */
const MAX_OPENING_LINE = 1024 * 1024
/** The longest unfinished stdout line kept while undecided: enough to keep the framing of log lines. */
const MAX_UNDECIDED_REST = 64 * 1024
/** How long a refused server process lives on, given nothing, before it is ended. */
const REFUSED_LINGER_MS = 2000

type Report = (event: StdioMessageEvent) => void
/** Whether an MCP server, seen at its opening request, is refused: the error the client gets, or undefined. */
export type Refuse = (server: StdioServer, opening: JsonRpcRequest) => Error | undefined

/**
 * Watches a real child's stdin and stdout without changing a byte: the client's `stdin.write`/`end` and
 * the stdout stream's `push` (which Node's pipe reader calls) are wrapped, so no `data` listener is added
 * and the stream's flow is the client's. The child counts as an MCP server once the first line the client
 * writes is an opening request (`initialize` or `server/discover`); until then nothing is reported, and
 * when it is anything else the wrappers are removed and the process is left alone.
 */
export function tapLiveChild(
  child: ChildProcess,
  server: StdioServer,
  spawnId: number,
  report: Report,
  refuse?: Refuse,
): void {
  const { stdin, stdout } = child
  if (!stdin || !stdout) return
  let state: 'undecided' | 'mcp' | 'other' | 'refused' = 'undecided'
  const toServer = new LineSplitter()
  const toClient = new LineSplitter(MAX_UNDECIDED_REST)
  const restore = [
    wrap(stdin, 'write', observeOut),
    wrap(stdin, 'end', observeOut),
    wrap(stdout, 'push', observeIn),
  ]

  function emit(direction: StdioMessageEvent['direction'], message: JsonRpcMessage): void {
    report({ server, spawnId, direction, message })
  }

  function leave(): void {
    state = 'other'
    for (const undo of restore) undo()
  }

  function observeOut(chunk: unknown, encoding: unknown): boolean {
    if (state === 'refused') {
      // Every later request gets the refusal too: a client that probes first (server/discover) and
      // then opens with initialize reports the refusal, not a closed connection.
      if (isBytes(chunk))
        for (const line of toServer.push(chunk, asEncoding(encoding))) {
          const message = parseJsonRpcLine(line)
          if (message !== undefined && isJsonRpcRequest(message)) answerRefused(message)
        }
      return false
    }
    if (state === 'other' || !isBytes(chunk)) return true
    for (const line of toServer.push(chunk, asEncoding(encoding))) {
      const message = parseJsonRpcLine(line)
      if (state === 'undecided') {
        if (
          message === undefined ||
          !isJsonRpcRequest(message) ||
          !OPENING_METHODS.includes(message.method)
        ) {
          leave()
          return true
        }
        const refusal = refuse?.(server, message)
        if (refusal !== undefined) {
          refuseServer(message, refusal)
          return false
        }
        state = 'mcp'
      }
      if (message !== undefined) emit('to-server', message)
    }
    if (state === 'undecided' && toServer.pending > MAX_OPENING_LINE) leave()
    return true
  }

  /**
   * An MCP server the caller refuses: its opening request never reaches it, nor does anything after; the
   * client gets a JSON-RPC error with the refusal's message, and the process is ended.
   */
  let refusal: Error | undefined
  function refuseServer(opening: JsonRpcRequest, error: Error): void {
    state = 'refused'
    refusal = error
    answerRefused(opening)
    // It has been given nothing: it ends when the client closes its stdin, or is ended in a moment (not at
    // once: the client must read the refusals before it sees the process exit).
    setTimeout(() => child.kill(), REFUSED_LINGER_MS).unref()
  }

  function answerRefused(request: JsonRpcRequest): void {
    const message = refusal?.message ?? 'refused'
    const answer = { jsonrpc: '2.0', id: request.id, error: { code: MISS_ERROR_CODE, message } }
    stdout?.push(`${JSON.stringify(answer)}\n`)
  }

  function observeIn(chunk: unknown, encoding: unknown): boolean {
    if (state === 'other' || state === 'refused' || !isBytes(chunk)) return true
    // Lines before the opening request are the server's start-up noise: framed, not reported.
    const lines = toClient.push(chunk, asEncoding(encoding))
    if (state !== 'mcp') return true
    for (const line of lines) {
      const message = parseJsonRpcLine(line)
      if (message !== undefined) emit('to-client', message)
    }
    return true
  }
}

function isBytes(chunk: unknown): chunk is string | Uint8Array {
  return typeof chunk === 'string' || chunk instanceof Uint8Array
}

function asEncoding(encoding: unknown): BufferEncoding {
  return typeof encoding === 'string' && Buffer.isEncoding(encoding) ? encoding : 'utf8'
}

/**
 * Wraps `stream[name]` so `observe` sees its first two arguments first; returns the undo. When `observe`
 * returns false the call is swallowed: a `write` reports success to its callback and an `end` ends the
 * stream without its chunk.
 */
function wrap(
  stream: Writable | Readable,
  name: 'write' | 'end' | 'push',
  observe: (chunk: unknown, encoding: unknown) => boolean,
): () => void {
  const target = stream as unknown as Record<string, (...args: unknown[]) => unknown>
  const own = Object.hasOwn(target, name)
  const original = target[name] as (...args: unknown[]) => unknown
  target[name] = function (this: unknown, ...args: unknown[]) {
    if (typeof args[0] === 'function' || observe(args[0], args[1])) return original.apply(this, args)
    const callback = args.findLast((a) => typeof a === 'function') as (() => void) | undefined
    if (name === 'end') return original.call(this, callback)
    if (callback) process.nextTick(callback)
    return true
  }
  return () => {
    if (own) target[name] = original
    else delete target[name]
  }
}
