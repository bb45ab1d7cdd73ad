import { createMCPClient, type MCPClient } from '@ai-sdk/mcp'
import { createOpenAI } from '@ai-sdk/openai'
import { generateText, stepCountIs } from 'ai'
import { afterAll, beforeAll, test } from 'vitest'
import { agentCase } from '../../../plugin/index.ts'
import { fixtureServers, refunded } from './orders-server.ts'

// The AI SDK's MCP client over its HTTP transport (Streamable HTTP), connected in beforeAll; its tools
// listed inside the test.
const servers = await fixtureServers('ai-sdk')
const openai = createOpenAI({ apiKey: 'sk-fixture-not-a-key', baseURL: `${servers.model.url}/v1` })
let mcp: MCPClient | undefined

beforeAll(async () => {
  mcp = await createMCPClient({ transport: { type: 'http', url: servers.orders.url } })
})
afterAll(async () => {
  await mcp?.close()
  await servers.close()
})

test(
  'refund with the AI SDK over MCP HTTP',
  agentCase(
    async (input: string) => {
      const result = await generateText({
        model: openai.chat('gpt-4o-mini'),
        system: 'You help customers with refunds. Look the order up first.',
        prompt: input,
        tools: await (mcp as MCPClient).tools(),
        stopWhen: stepCountIs(5),
      })
      return result.text
    },
    { agent: 'refund-bot-ai-mcp-http', input: 'Refund my order A17, it arrived broken', assert: refunded },
  ),
)
