import type { CrashlabError } from '../../errors.ts'
import type { JsonRpcMessage, JsonRpcRequest } from './json-rpc.ts'

/** A process about to be spawned, as `decide` sees it. */
export interface StdioSpawn {
  command: string
  args: readonly string[]
  cwd?: string
}

/** The MCP server a message belongs to: the command line that started it (and where, and with what). */
export interface StdioServer {
  command: string
  args: readonly string[]
  /** The spawn's working directory, when it gave one. */
  cwd?: string
  /** The spawn's environment, when it gave one: never recorded (it may hold keys). */
  env?: NodeJS.ProcessEnv
}

/**
 * What the tap does with one spawn: `live` starts the real process and reports its MCP messages,
 * `replay` starts nothing and answers from `answer`, `ignore` is the real spawn, untouched.
 */
export type StdioDecision = 'live' | 'replay' | 'ignore'

/** One JSON-RPC message that crossed a live MCP server's stdin (`to-server`) or stdout (`to-client`). */
export interface StdioMessageEvent {
  server: StdioServer
  /** Which spawn of this tap the message belongs to, from 1: two sessions of one server reuse request ids. */
  spawnId: number
  direction: 'to-server' | 'to-client'
  message: JsonRpcMessage
}

/**
 * Answers a request of a replayed server: the messages its stdout sends back, the response last, or
 * `undefined` when the recording does not hold the request.
 */
export type StdioAnswer = (
  server: StdioServer,
  request: JsonRpcRequest,
) => readonly JsonRpcMessage[] | undefined | Promise<readonly JsonRpcMessage[] | undefined>

/** A request that a replayed server could not answer: the client got a JSON-RPC error instead. */
export interface StdioMiss {
  server: StdioServer
  spawnId: number
  request: JsonRpcRequest
  /** `E_MCP_REPLAY_MISSING`, its message the one the client got. */
  error: CrashlabError
}
