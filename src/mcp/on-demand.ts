/**
 * What MCP loads on its first use, as one lazily loaded chunk: the exchange over HTTP (Streamable HTTP and
 * the older HTTP+SSE transport), which the interceptor loads on the first MCP request, and the recording
 * and replaying side of the stdio tap, which it loads when a test file starts a process. A test file
 * that uses no MCP server loads none of it.
 */
export { mcpExchange } from './mcp-exchange.ts'
export { legacyPost, legacyStream } from './mcp-legacy-sse.ts'
export { answer, missed, recordMessage } from './stdio-recording.ts'
