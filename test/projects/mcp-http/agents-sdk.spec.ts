import {
  Agent,
  MCPServerStreamableHttp,
  OpenAIChatCompletionsModel,
  run,
  setTracingDisabled,
} from '@openai/agents'
import OpenAI from 'openai'
import { afterAll, beforeAll, test } from 'vitest'
import { agentCase } from '../../../plugin/index.ts'
import { fixtureServers, refunded } from './orders-server.ts'

// The OpenAI Agents SDK with its MCP server over Streamable HTTP, connected in beforeAll, outside any
// test.
setTracingDisabled(true)
const servers = await fixtureServers('agents-sdk')
// FIXTURE_BLOCKED_TOOL hides one of the server's tools from the agent: its tool set changed since the
// recording, so the model request's tools differ.
const blocked = process.env.FIXTURE_BLOCKED_TOOL
const orders = new MCPServerStreamableHttp({
  name: 'orders',
  url: servers.orders.url,
  ...(blocked && { toolFilter: { blockedToolNames: [blocked] } }),
})

beforeAll(() => orders.connect())
afterAll(async () => {
  await orders.close()
  await servers.close()
})

test(
  'refund with the Agents SDK over MCP HTTP',
  agentCase(
    async (input: string) => {
      const client = new OpenAI({ apiKey: 'sk-fixture-not-a-key', baseURL: `${servers.model.url}/v1` })
      const agent = new Agent({
        name: 'refund-bot',
        instructions: 'You help customers with refunds. Look the order up first.',
        model: new OpenAIChatCompletionsModel(client, 'gpt-4o-mini'),
        mcpServers: [orders],
      })
      return (await run(agent, input)).finalOutput
    },
    {
      agent: 'refund-bot-agents-mcp-http',
      input: 'Refund my order A17, it arrived broken',
      assert: refunded,
    },
  ),
)
