import { fileURLToPath } from 'node:url'
import {
  Agent,
  type MCPServer,
  MCPServerStdio,
  OpenAIProvider,
  Runner,
  setTracingDisabled,
} from '@openai/agents'
import OpenAI from 'openai'
import { INSTRUCTIONS } from '../shared/shop.ts'

// No trace upload from a test or a script (see ../openai-agents/README.md).
setTracingDisabled(true)

/**
 * The shop's MCP server (./orders-server.ts) as the OpenAI Agents SDK starts it: `node orders-server.ts`,
 * a child process spoken to over stdin and stdout. The SDK starts it on `connect()`, which the spec calls
 * in `beforeAll`: outside any test, so crashlab records that handshake in the test file's MCP cassette
 * (`__cassettes__/mcp.spec.ts/outside-tests.mcp.json`).
 *
 * The client passes the server only a few variables of its own environment (PATH, HOME…); FIXTURE_LOG,
 * where the server logs its starts and refunds, is passed on when set.
 */
export function ordersServer(): MCPServerStdio {
  return new MCPServerStdio({
    name: 'orders',
    command: process.execPath,
    args: [fileURLToPath(new URL('./orders-server.ts', import.meta.url))],
    ...(process.env.FIXTURE_LOG && { env: { FIXTURE_LOG: process.env.FIXTURE_LOG } }),
  })
}

export interface SupportAgentOptions {
  /** The OpenAI-compatible base URL, with its `/v1`: the scripted provider's in the examples. */
  baseURL: string
  /** The connected MCP servers whose tools the agent uses: `ordersServer()` after its `connect()`. */
  mcpServers: MCPServer[]
  model?: string
}

/** The support agent: the same instructions as the other examples, its tools all on MCP servers. */
export function createSupportAgent(mcpServers: MCPServer[], model: string) {
  return new Agent({ name: 'support', instructions: INSTRUCTIONS, model, mcpServers })
}

/**
 * Runs the support agent on the OpenAI Agents SDK with a `Runner` of its own, on the Responses API,
 * with an OpenAI client pointed at `baseURL`. The SDK lists the servers' tools at each turn and calls
 * them over MCP. Returns the final answer and the tools the SDK says it called.
 *
 * @example
 * const orders = ordersServer()
 * await orders.connect()
 * const { answer } = await runSupportAgent(INPUT, { baseURL: 'http://127.0.0.1:4000/v1', mcpServers: [orders] })
 * await orders.close()
 */
export async function runSupportAgent(input: string, options: SupportAgentOptions) {
  // maxRetries 0: a retry is another model call, which a replay would have to match.
  const openAIClient = new OpenAI({ baseURL: options.baseURL, apiKey: 'sk-example-not-a-key', maxRetries: 0 })
  const runner = new Runner({ modelProvider: new OpenAIProvider({ openAIClient }) })
  const agent = createSupportAgent(options.mcpServers, options.model ?? 'gpt-4o-mini')
  const result = await runner.run(agent, input, { maxTurns: 6 })
  const tools = result.newItems
    .filter((item) => item.type === 'tool_call_item')
    .map((item) => (item.rawItem as { name?: string }).name)
  return { answer: result.finalOutput ?? '', tools }
}
