import { createMCPClient, type MCPClient } from '@ai-sdk/mcp'
import { StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio'
import { createOpenAI } from '@ai-sdk/openai'
import { generateText, stepCountIs } from 'ai'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { agentCase } from '../../../plugin/index.ts'
import { log, modelServer, ORDERS_SERVER } from './provider.ts'

// The AI SDK's MCP client over its own stdio transport, connected in beforeAll; its tools listed inside
// the test.
const model = await modelServer()
const openai = createOpenAI({ apiKey: 'sk-fixture-not-a-key', baseURL: `${model.url}/v1` })
let mcp: MCPClient | undefined

beforeAll(async () => {
  mcp = await createMCPClient({ transport: new StdioMCPTransport(ORDERS_SERVER) })
})
afterAll(async () => {
  await mcp?.close()
  log({ file: 'ai-sdk', requests: model.requests() })
  await model.close()
})

test(
  'refund with the AI SDK over MCP stdio',
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
    {
      agent: 'refund-bot-ai-mcp',
      input: 'Refund my order A17, it arrived broken',
      assert: (run) => {
        expect(run.toolCalls('get_order')).toHaveLength(1)
        expect(run.toolCalls('issue_refund')).toHaveLength(1)
        expect(run.output).toContain('R-A17')
      },
    },
  ),
)
