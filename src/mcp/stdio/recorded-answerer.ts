import stableStringify from 'fast-json-stable-stringify'
import { isJsonRpcRequest, isJsonRpcResponse, type JsonRpcMessage, type JsonRpcRequest } from './json-rpc.ts'
import type { StdioAnswer, StdioMessageEvent, StdioServer } from './types.ts'

interface Exchange {
  key: string
  response: JsonRpcMessage
  used: boolean
}

/** What a request is matched on: its server's command line, its method and its params; never its id. */
function keyOf(server: StdioServer, request: JsonRpcRequest): string {
  return stableStringify([server.command, server.args, request.method, request.params ?? null])
}

/**
 * An `answer` for `tapStdioServers` that serves a recorded session: each request is matched by server,
 * method and params (not by its JSON-RPC id), and answered with the recorded response carrying the live
 * id. Identical requests are served in the order they were recorded, each answer once; a request with no
 * unused match is a miss (`undefined`).
 *
 * @example
 * const events: StdioMessageEvent[] = []
 * // record: tapStdioServers({ decide: () => 'live', onMessage: (e) => events.push(e) })
 * tapStdioServers({ decide: () => 'replay', answer: recordedAnswerer(events) })
 */
export function recordedAnswerer(events: readonly StdioMessageEvent[]): StdioAnswer {
  let exchanges: Exchange[] | undefined
  // Built on first use: the recording's events may still be arriving when the answerer is made.
  const build = (): Exchange[] => {
    const open = new Map<string, string>()
    const built: Exchange[] = []
    for (const event of events) {
      const { message } = event
      // Ids are unique per spawn and direction only: key them by both.
      if (event.direction === 'to-server' && isJsonRpcRequest(message)) {
        open.set(`${event.spawnId}:${String(message.id)}`, keyOf(event.server, message))
      } else if (event.direction === 'to-client' && isJsonRpcResponse(message) && message.id !== null) {
        const key = open.get(`${event.spawnId}:${String(message.id)}`)
        if (key === undefined) continue
        open.delete(`${event.spawnId}:${String(message.id)}`)
        built.push({ key, response: message, used: false })
      }
    }
    return built
  }
  return (server, request) => {
    exchanges ??= build()
    const key = keyOf(server, request)
    const exchange = exchanges.find((e) => !e.used && e.key === key)
    if (exchange === undefined) return undefined
    exchange.used = true
    return [{ ...exchange.response, id: request.id } as JsonRpcMessage]
  }
}
