/**
 * MCP servers over stdio: seeing the JSON-RPC messages of the servers an agent spawns, and replaying
 * them without starting the server (docs/mcp-stdio.md).
 */
export {
  isJsonRpcNotification,
  isJsonRpcRequest,
  isJsonRpcResponse,
  type JsonRpcError,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  OPENING_METHODS,
  parseJsonRpcLine,
} from './json-rpc.ts'
export { recordedAnswerer } from './recorded-answerer.ts'
export { type StdioTap, type TapStdioServersOptions, tapStdioServers } from './tap-stdio-servers.ts'
export type {
  StdioAnswer,
  StdioDecision,
  StdioMessageEvent,
  StdioMiss,
  StdioServer,
  StdioSpawn,
} from './types.ts'
