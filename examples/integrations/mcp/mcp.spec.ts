/**
 * The support agent with its tools on an MCP server over stdio (the OpenAI Agents SDK's
 * `MCPServerStdio`), tested the crashlab way: each test replays its cassette from
 * `__cassettes__/mcp.spec.ts/` offline under CI, the server's handshake in `beforeAll` replays from
 * `outside-tests.mcp.json` beside them, and the server is never started. `node ../record-cassettes.ts mcp`
 * records them again against the scripted provider started here and the real server.
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { agentCase } from '../../../plugin/index.ts' // in your project: 'crashlab/vitest'
import { expectCleanRefund, supportHarness } from '../shared/harness.ts'
import { INPUT } from '../shared/shop.ts'
import { ordersServer, runSupportAgent } from './agent.ts'

const AGENT = 'mcp-support'
// One server for the file, connected before the tests and closed after them, as an app would hold it.
const orders = ordersServer()
beforeAll(() => orders.connect())
afterAll(() => orders.close())

// The oracle, the recording-only providers and the violation test (whose 490 refund goes through the
// MCP server too): see ../shared/harness.ts. The server keeps its own shop; it logs its refunds itself.
const { agent } = await supportHarness(AGENT, (input, { baseURL }) =>
  runSupportAgent(input, { baseURL, mcpServers: [orders] }),
)

test(
  'refunds a damaged order through tools on an MCP server',
  agentCase(agent, {
    agent: AGENT,
    input: INPUT,
    assert: (run) => {
      expectCleanRefund(run)
      expect(run.output).toMatchObject({ tools: ['get_order', 'issue_refund'] })
      // The tool steps are the MCP calls, named by the server's `initialize` answer, and their side
      // effects come from its annotations: get_order is readOnlyHint, issue_refund destructiveHint.
      const tools = run.steps.filter((s) => s.type === 'tool')
      expect(tools.map((s) => [s.name, s.sideEffects, s.mcp?.server])).toEqual([
        ['get_order', false, 'orders-server'],
        ['issue_refund', true, 'orders-server'],
      ])
    },
  }),
)
