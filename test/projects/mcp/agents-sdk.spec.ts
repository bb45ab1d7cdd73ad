import { Agent, MCPServerStdio, OpenAIChatCompletionsModel, run, setTracingDisabled } from '@openai/agents'
import OpenAI from 'openai'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { agentCase } from '../../../plugin/index.ts'
import { log, modelServer, ORDERS_SERVER } from './provider.ts'

// The OpenAI Agents SDK with its MCP server over stdio: the SDK starts the server (through
// @modelcontextprotocol/client) when it connects, here in beforeAll, outside any test.
setTracingDisabled(true)
const model = await modelServer()
const orders = new MCPServerStdio({ name: 'orders', ...ORDERS_SERVER })

beforeAll(() => orders.connect())
afterAll(async () => {
  await orders.close()
  log({ file: 'agents-sdk', requests: model.requests() })
  await model.close()
})

test(
  'refund with the Agents SDK over MCP stdio',
  agentCase(
    async (input: string) => {
      const client = new OpenAI({ apiKey: 'sk-fixture-not-a-key', baseURL: `${model.url}/v1` })
      const agent = new Agent({
        name: 'refund-bot',
        instructions: 'You help customers with refunds. Look the order up first.',
        model: new OpenAIChatCompletionsModel(client, 'gpt-4o-mini'),
        mcpServers: [orders],
      })
      const result = await run(agent, input)
      return result.finalOutput
    },
    {
      agent: 'refund-bot-agents-mcp',
      input: 'Refund my order A17, it arrived broken',
      assert: (run) => {
        expect(run.toolCalls('get_order')).toHaveLength(1)
        expect(run.toolCalls('issue_refund')).toHaveLength(1)
        expect(run.output).toContain('R-A17')
      },
    },
  ),
)
