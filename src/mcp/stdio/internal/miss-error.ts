import { CrashlabError } from '../../../errors.ts'
import { commandLine } from '../command-line.ts'
import type { JsonRpcRequest } from '../json-rpc.ts'
import type { StdioServer } from '../types.ts'

/** The JSON-RPC error code a replayed server answers a request with when the recording does not hold it. */
export const MISS_ERROR_CODE = -32603

function short(value: unknown): string {
  const text = JSON.stringify(value) ?? 'nothing'
  return text.length > 200 ? `${text.slice(0, 200)}…` : text
}

/** The error of a request that a replayed server's recording does not hold: it names the method, and the tool for `tools/call`. */
export function missError(server: StdioServer, request: JsonRpcRequest, cause?: unknown): CrashlabError {
  const params = (request.params ?? {}) as { name?: unknown; arguments?: unknown }
  const what =
    request.method === 'tools/call'
      ? `no tools/call of tool "${String(params.name)}" with arguments ${short(params.arguments ?? {})}`
      : `no ${request.method} request with params ${short(request.params ?? {})}`
  return new CrashlabError(
    'E_MCP_REPLAY_MISSING',
    `MCP server \`${commandLine(server)}\` is replayed and its recording holds ${what}: the run diverged from ` +
      'the recording, and the server was not started. Re-record the run (npx crashlab vitest --record), or ' +
      'change the agent back so it makes the recorded call.',
    { cause, subject: commandLine(server) },
  )
}
