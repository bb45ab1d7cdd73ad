import { defineConfig } from 'vitest/config'
import { crashlab } from '../../../plugin/index.ts'

// Agents whose tools are on MCP servers over stdio, started by the agent's framework (the OpenAI Agents
// SDK's MCPServerStdio, the AI SDK's MCP client) in `beforeAll`; the model is the scripted provider on
// loopback. Recorded, then replayed with no server and no model reachable.
export default defineConfig({
  plugins: [crashlab()],
  test: { include: ['**/*.spec.ts'], testTimeout: 30_000 },
})
