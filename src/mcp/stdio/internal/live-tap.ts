import type { ChildProcess } from 'node:child_process'
import type { Readable, Writable } from 'node:stream'
import { isJsonRpcRequest, type JsonRpcMessage, OPENING_METHODS, parseJsonRpcLine } from '../json-rpc.ts'
import type { StdioMessageEvent, StdioServer } from '../types.ts'
import { LineSplitter } from './line-splitter.ts'

/** The longest first line a client may write before the tap decides the process is no MCP server. */
const MAX_OPENING_LINE = 1024 * 1024
/** The longest unfinished stdout line kept while undecided: enough to keep the framing of log lines. */
const MAX_UNDECIDED_REST = 64 * 1024

type Report = (event: StdioMessageEvent) => void

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
): void {
  const { stdin, stdout } = child
  if (!stdin || !stdout) return
  let state: 'undecided' | 'mcp' | 'other' = 'undecided'
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

  function observeOut(chunk: unknown, encoding: unknown): void {
    if (state === 'other' || !isBytes(chunk)) return
    for (const line of toServer.push(chunk, asEncoding(encoding))) {
      const message = parseJsonRpcLine(line)
      if (state === 'undecided') {
        if (
          message === undefined ||
          !isJsonRpcRequest(message) ||
          !OPENING_METHODS.includes(message.method)
        ) {
          leave()
          return
        }
        state = 'mcp'
      }
      if (message !== undefined) emit('to-server', message)
    }
    if (state === 'undecided' && toServer.pending > MAX_OPENING_LINE) leave()
  }

  function observeIn(chunk: unknown, encoding: unknown): void {
    if (state === 'other' || !isBytes(chunk)) return
    // Lines before the opening request are the server's start-up noise: framed, not reported.
    const lines = toClient.push(chunk, asEncoding(encoding))
    if (state !== 'mcp') return
    for (const line of lines) {
      const message = parseJsonRpcLine(line)
      if (message !== undefined) emit('to-client', message)
    }
  }
}

function isBytes(chunk: unknown): chunk is string | Uint8Array {
  return typeof chunk === 'string' || chunk instanceof Uint8Array
}

function asEncoding(encoding: unknown): BufferEncoding {
  return typeof encoding === 'string' && Buffer.isEncoding(encoding) ? encoding : 'utf8'
}

/** Wraps `stream[name]` so `observe` sees its first two arguments first; returns the undo. */
function wrap(
  stream: Writable | Readable,
  name: 'write' | 'end' | 'push',
  observe: (chunk: unknown, encoding: unknown) => void,
): () => void {
  const target = stream as unknown as Record<string, (...args: unknown[]) => unknown>
  const own = Object.hasOwn(target, name)
  const original = target[name] as (...args: unknown[]) => unknown
  target[name] = function (this: unknown, ...args: unknown[]) {
    if (typeof args[0] !== 'function') observe(args[0], args[1])
    return original.apply(this, args)
  }
  return () => {
    if (own) target[name] = original
    else delete target[name]
  }
}
