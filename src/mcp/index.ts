/**
 * MCP over HTTP: recognising Model Context Protocol requests by their JSON-RPC body on any host, and
 * recording and replaying them through the Session (`tools/call` as a `tool` step, the rest as `http`
 * steps labelled `mcp:<method>`). The interceptor loads `mcp-exchange.ts` on the first MCP request.
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
