/**
 * MCP over HTTP: recognising Model Context Protocol requests by their JSON-RPC body on any host, and
 * recording and replaying them through the Session (`tools/call` as a `tool` step, the rest as `http`
 * steps labelled `mcp:<method>`). The interceptor loads `mcp-exchange.ts` on the first MCP request, and
 * `mcp-legacy-sse.ts` (the older HTTP+SSE transport's `GET` stream and the POSTs it pairs) with it.
 *
 * Whether an MCP tool has side effects: the config's overrides, else its server's annotations
 * (`mcpSideEffects`, for any transport), learned from `tools/list` answers (`learnMcpTools`).
 *
 * MCP servers an agent starts over stdio: their JSON-RPC messages seen at `child_process.spawn` and
 * replayed without starting them (docs/mcp-stdio.md), recorded and replayed through the Sessions
 * (`tapStdioIntoSessions`). MCP outside any test's Session goes to the test file's MCP Session.
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
export { MCP_FILE_CASSETTE, mcpOutsideSession, setMcpOutsideSession } from './outside-tests.ts'
export { stdioUrl } from './stdio/command-line.ts'
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
export { tapStdioIntoSessions } from './stdio-sessions.ts'
export {
  learnMcpTools,
  type McpSideEffectsSource,
  type McpToolAnnotations,
  mcpSideEffects,
  mcpToolAnnotations,
} from './tool-annotations.ts'
