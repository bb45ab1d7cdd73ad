import { EventEmitter } from 'node:events'
import { Readable, Writable } from 'node:stream'
import { isJsonRpcRequest, type JsonRpcMessage, parseJsonRpcLine } from '../json-rpc.ts'
import type { StdioAnswer, StdioMiss, StdioServer } from '../types.ts'
import { LineSplitter } from './line-splitter.ts'
import { MISS_ERROR_CODE, missError } from './miss-error.ts'

export interface ReplayProcessOptions {
  server: StdioServer
  spawnId: number
  answer: StdioAnswer
  onMiss: ((miss: StdioMiss) => void) | undefined
  /** The spawn's `stdio[2]`: a replayed server has a stderr stream only when the client asked for a pipe. */
  stderr: unknown
  /** The spawn's `signal`: aborting it ends the process as Node's `spawn` does (`@ai-sdk/mcp` closes this way). */
  signal: AbortSignal | undefined
  killSignal: NodeJS.Signals | number | undefined
}

/**
 * What a replayed MCP server's `spawn` returns: a stand-in for a ChildProcess whose stdout answers each
 * request written to its stdin from the recording. No process is started. It behaves as the three stdio
 * transports expect of a child: `spawn` on the next tick, `stdin.write` (with `drain`), `stdout` `data`,
 * an optional piped `stderr`, `exit` then `close` when stdin ends or on `kill()`, `exitCode` and
 * `signalCode`, and `signal` aborts.
 */
export class ReplayProcess extends EventEmitter {
  readonly stdin: Writable
  readonly stdout: Readable
  readonly stderr: Readable | null
  readonly stdio: [Writable, Readable, Readable | null]
  /** No process, no pid: a fake number could name a real process to whoever signals it. */
  readonly pid: number | undefined = undefined
  readonly spawnfile: string
  readonly spawnargs: string[]
  readonly connected = false
  exitCode: number | null = null
  signalCode: NodeJS.Signals | null = null
  killed = false

  readonly #options: ReplayProcessOptions
  readonly #lines = new LineSplitter()
  #pending = 0
  #written: Promise<void> = Promise.resolve()
  #stdinEnded = false
  #exited = false

  constructor(options: ReplayProcessOptions) {
    super()
    this.#options = options
    this.spawnfile = options.server.command
    this.spawnargs = [options.server.command, ...options.server.args]
    this.stdout = new Readable({ read() {} })
    this.stderr =
      options.stderr === 'pipe' || options.stderr === 'overlapped' ? new Readable({ read() {} }) : null
    this.stdin = new Writable({
      write: (chunk: Buffer, _encoding, callback) => {
        for (const line of this.#lines.push(chunk)) this.#receive(line)
        callback()
      },
      final: (callback) => {
        this.#stdinEnded = true
        this.#exitWhenIdle()
        callback()
      },
    })
    this.stdio = [this.stdin, this.stdout, this.stderr]
    const { signal } = options
    if (signal?.aborted) process.nextTick(() => this.#abort(signal))
    else signal?.addEventListener('abort', () => this.#abort(signal), { once: true })
    process.nextTick(() => this.emit('spawn'))
  }

  /** Ends the replayed server as a signal would: `exit` and `close` with the signal, on the next tick. */
  kill(signal: NodeJS.Signals | number = 'SIGTERM'): boolean {
    if (this.#exited) return false
    this.killed = true
    const name = typeof signal === 'number' ? 'SIGTERM' : signal
    process.nextTick(() => this.#exit(null, name))
    return true
  }

  ref(): void {}
  unref(): void {}
  disconnect(): void {}

  #abort(signal: AbortSignal): void {
    if (!this.kill(this.#options.killSignal ?? 'SIGTERM')) return
    const error = Object.assign(new Error('The operation was aborted', { cause: signal.reason }), {
      name: 'AbortError',
      code: 'ABORT_ERR',
    })
    this.emit('error', error)
  }

  #receive(line: string): void {
    const message = parseJsonRpcLine(line)
    // Notifications and the client's answers to server requests get no reply; neither do non-JSON lines.
    if (message === undefined || !isJsonRpcRequest(message)) return
    const { server, spawnId, answer, onMiss } = this.#options
    this.#pending += 1
    const reply = (async (): Promise<{ messages: readonly JsonRpcMessage[]; miss?: StdioMiss }> => {
      let cause: unknown
      try {
        const messages = await answer(server, message)
        if (messages !== undefined) return { messages }
      } catch (error) {
        cause = error
      }
      const error = missError(server, message, cause)
      const messages = [
        { jsonrpc: '2.0', id: message.id, error: { code: MISS_ERROR_CODE, message: error.message } },
      ] as const
      return { messages, miss: { server, spawnId, request: message, error } }
    })()
    // Answers are worked out together but written in the order the requests came: a replay is deterministic.
    this.#written = this.#written.then(async () => {
      const { messages, miss } = await reply
      if (miss) onMiss?.(miss)
      if (!this.#exited) for (const out of messages) this.stdout.push(`${JSON.stringify(out)}\n`)
      this.#pending -= 1
      this.#exitWhenIdle()
    })
  }

  /** A server whose stdin ended exits once it has answered what it was asked, as the real one would. */
  #exitWhenIdle(): void {
    if (this.#stdinEnded && this.#pending === 0) process.nextTick(() => this.#exit(0, null))
  }

  #exit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.#exited) return
    this.#exited = true
    this.exitCode = code
    this.signalCode = signal
    this.emit('exit', code, signal)
    this.stdout.push(null)
    this.stderr?.push(null)
    // Readable streams end asynchronously; `close` comes after them, as Node's does after the pipes close.
    setImmediate(() => this.emit('close', code, signal))
  }
}
