/**
 * MCP servers an agent starts: over stdio, their JSON-RPC messages seen at `child_process.spawn` and
 * replayed without starting them (docs/mcp-stdio.md). Not wired into the Session yet, and not exported
 * from a package entry.
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
  recordedAnswerer,
  type StdioAnswer,
  type StdioDecision,
  type StdioMessageEvent,
  type StdioMiss,
  type StdioServer,
  type StdioSpawn,
  type StdioTap,
  type TapStdioServersOptions,
  tapStdioServers,
} from './stdio/index.ts'
