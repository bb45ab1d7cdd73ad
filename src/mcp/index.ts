/**
 * MCP over HTTP: recognising Model Context Protocol requests by their JSON-RPC body on any host, and
 * recording and replaying them through the Session (`tools/call` as a `tool` step, the rest as `http`
 * steps labelled `mcp:<method>`). The interceptor loads `mcp-exchange.ts` on the first MCP request, and
 * `mcp-legacy-sse.ts` (the older HTTP+SSE transport's `GET` stream and the POSTs it pairs) with it.
 *
 * MCP servers an agent starts over stdio: their JSON-RPC messages seen at `child_process.spawn` and
 * replayed without starting them (docs/mcp-stdio.md); not wired into the Session yet.
 */
export { type McpUpstream, mcpExchange } from './mcp-exchange.ts'
export {
  isMcpMethod,
  isMcpRequest,
  isMcpStreamRequest,
  type McpMessage,
  readMcpMessages,
  readMcpRequest,
} from './mcp-message.ts'
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
