import { defineConfig } from 'vitest/config'
import { crashlab } from '../../../plugin/index.ts'

// Agents whose tools are on an MCP server over Streamable HTTP (the SDK's McpServer on loopback, started
// by the spec file), connected by the agent's framework (the OpenAI Agents SDK's MCPServerStreamableHttp,
// the AI SDK's MCP client over HTTP) in `beforeAll`; the model is the scripted provider on loopback.
// Recorded, then replayed with no server and no model reachable, and forked through `crashlab fork`.
export default defineConfig({
  plugins: [crashlab()],
  test: { include: ['**/*.spec.ts'], testTimeout: 30_000 },
})
