// The three stdio MCP clients the tests drive against the real test server, behind one small interface.
import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** The real stdio MCP server the tests start: a read tool and a side-effect tool. */
export const SERVER_SCRIPT = join(
  import.meta.dirname,
  '..',
  '..',
  '..',
  'test',
  'fixtures',
  'mcp',
  'stdio-server.mjs',
)

/** A file the test server appends to when it starts and when a tool runs. */
export function serverLog(): { path: string; starts(): number; runs(): string[] } {
  const path = join(mkdtempSync(join(tmpdir(), 'crashlab-mcp-')), 'server.log')
  appendFileSync(path, '')
  const lines = () => readFileSync(path, 'utf8').split('\n').filter(Boolean)
  return {
    path,
    starts: () => lines().filter((l) => l.startsWith('start ')).length,
    runs: () => lines().flatMap((l) => (l.startsWith('run ') ? [l.slice(4)] : [])),
  }
}

/** One connected MCP session, whatever the client. */
export interface McpSession {
  listTools(): Promise<string[]>
  /** The text of the tool's first content part; rejects when the server answers with a JSON-RPC error. */
  callTool(name: string, args: Record<string, unknown>): Promise<string>
  close(): Promise<void>
}

export interface McpClientKind {
  name: string
  /** How many processes one session spawns: the Agents SDK probes the protocol version on a sibling first. */
  spawnsPerSession: number
  /** The first request of each spawn of one session: `initialize`, or the `server/discover` version probe. */
  opens: string[]
  connect(server: { command: string; args: string[]; env: Record<string, string> }): Promise<McpSession>
}

function firstText(content: unknown): string {
  const first = (content as Array<{ type: string; text?: string }>)[0]
  return first?.type === 'text' ? (first.text ?? '') : JSON.stringify(content)
}

const officialSdk: McpClientKind = {
  name: '@modelcontextprotocol/sdk (Client + StdioClientTransport)',
  spawnsPerSession: 1,
  opens: ['initialize'],
  async connect(server) {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js')
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js')
    const client = new Client({ name: 'crashlab-test', version: '1.0.0' })
    await client.connect(new StdioClientTransport(server))
    return {
      listTools: async () => (await client.listTools()).tools.map((t) => t.name),
      callTool: async (name, args) => firstText((await client.callTool({ name, arguments: args })).content),
      close: () => client.close(),
    }
  },
}

const mcpClient: McpClientKind = {
  name: '@modelcontextprotocol/client (Client + StdioClientTransport)',
  spawnsPerSession: 1,
  opens: ['initialize'],
  async connect(server) {
    const { Client } = await import('@modelcontextprotocol/client')
    const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio')
    const client = new Client({ name: 'crashlab-test', version: '1.0.0' })
    await client.connect(new StdioClientTransport(server))
    return {
      listTools: async () => (await client.listTools()).tools.map((t) => t.name),
      callTool: async (name, args) => firstText((await client.callTool({ name, arguments: args })).content),
      close: () => client.close(),
    }
  },
}

const agentsSdk: McpClientKind = {
  name: '@openai/agents (MCPServerStdio, through @modelcontextprotocol/client)',
  spawnsPerSession: 2,
  // Its version negotiation probes on a short-lived sibling process, then starts the session's own.
  opens: ['server/discover', 'initialize'],
  async connect(server) {
    const { MCPServerStdio } = await import('@openai/agents')
    const mcp = new MCPServerStdio({
      name: 'test-server',
      command: server.command,
      args: server.args,
      env: server.env,
    })
    await mcp.connect()
    return {
      listTools: async () => (await mcp.listTools()).map((t) => t.name),
      callTool: async (name, args) => firstText(await mcp.callTool(name, args)),
      close: () => mcp.close(),
    }
  },
}

const aiSdk: McpClientKind = {
  name: '@ai-sdk/mcp (createMCPClient + StdioMCPTransport)',
  spawnsPerSession: 1,
  // It probes with server/discover on the same process, and falls back to initialize.
  opens: ['server/discover'],
  async connect(server) {
    const { createMCPClient } = await import('@ai-sdk/mcp')
    const { StdioMCPTransport } = await import('@ai-sdk/mcp/mcp-stdio')
    const client = await createMCPClient({ transport: new StdioMCPTransport(server) })
    return {
      listTools: async () => (await client.listTools()).tools.map((t) => t.name),
      callTool: async (name, args) => firstText((await client.callTool({ name, arguments: args })).content),
      close: () => client.close(),
    }
  },
}

/** Every client the stdio tap is tested with. */
export const MCP_CLIENTS: readonly McpClientKind[] = [officialSdk, mcpClient, agentsSdk, aiSdk]
