import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ToolStep } from '../case/schema/step.ts'
import { recordRun, replayRun } from '../engine/internal/test-record-replay.ts'
import type { StdioTap } from './stdio/tap-stdio-servers.ts'
import { tapStdioIntoSessions } from './stdio-sessions.ts'

// A real stdio MCP server (test/fixtures/mcp/stdio-server.mjs) driven by the official SDK's client,
// recorded and replayed through crashlab's Sessions; the server logs each start and tool run.
const SERVER = fileURLToPath(new URL('../../test/fixtures/mcp/stdio-server.mjs', import.meta.url))
let tap: StdioTap
let dir: string
let logFile: string
beforeAll(() => {
  tap = tapStdioIntoSessions()
  dir = mkdtempSync(join(tmpdir(), 'crashlab-stdio-sessions-'))
  logFile = join(dir, 'server.log')
})
afterAll(() => {
  tap.uninstall()
  rmSync(dir, { recursive: true, force: true })
})

const logged = (): string[] => {
  try {
    return readFileSync(logFile, 'utf8').trim().split('\n').filter(Boolean)
  } catch {
    return []
  }
}

/** Every message the client's transport received, in order (the SDK's client drops some progress). */
let received: Array<{ method?: string; params?: { progress?: number } }> = []

async function withClient<T>(use: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ name: 'stdio-sessions-test', version: '1.0.0' })
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER],
    env: { PATH: process.env.PATH ?? '', MCP_TEST_LOG: logFile },
  })
  await client.connect(transport)
  const deliver = transport.onmessage
  transport.onmessage = (message) => {
    received.push(message as (typeof received)[number])
    deliver?.(message)
  }
  try {
    return await use(client)
  } finally {
    await client.close()
  }
}

const text = (result: unknown) => (result as { content: Array<{ text: string }> }).content[0]?.text

describe('stdio MCP servers through Sessions', () => {
  it("replays a server's progress notifications with the call they belong to, the server not started", async () => {
    const count = (client: Client) =>
      client.callTool({ name: 'count', arguments: { n: 3 } }, undefined, { onprogress: () => {} }).then(text)
    // The SDK's client hands progress to `onprogress` asynchronously and forgets the token once the answer
    // came, so what its transport received is what is compared.
    const progressOf = () =>
      received.filter((m) => m.method === 'notifications/progress').map((m) => m.params?.progress)
    received = []
    const recording = await recordRun(() => withClient(count))
    expect(recording.output).toBe('counted 3')
    expect(progressOf()).toEqual([1, 2, 3])
    const before = logged().length
    received = []
    const { output, session } = await replayRun(recording.loaded, () => withClient(count))
    await session.finish({ output: null })
    expect(output).toBe('counted 3')
    expect(progressOf()).toEqual([1, 2, 3])
    expect(logged()).toHaveLength(before)
  })

  it('a fork blocks a side-effect call its parent never made; the call it made is served; nothing starts', async () => {
    const agent = (amount: number) => (client: Client) =>
      client.callTool({ name: 'get_order', arguments: { id: 'A17' } }).then(async (order) => ({
        order: text(order),
        refund: await client.callTool({ name: 'issue_refund', arguments: { id: 'A17', amount } }),
      }))
    const recording = await recordRun(() => withClient(agent(49)))
    const tools = recording.loaded.steps.filter((s): s is ToolStep => s.type === 'tool')
    expect(tools.map((s) => [s.name, s.sideEffects])).toEqual([
      ['get_order', true],
      ['issue_refund', true],
    ])
    const before = logged().length
    const forkAt = tools[0]!.index
    const { output, session } = await replayRun(recording.loaded, () => withClient(agent(490)), { forkAt })
    const run = await session.finish({ output: null })
    expect(output.order).toBe('order A17: 1 kettle, 49 EUR')
    expect(output.refund.isError).toBe(true)
    expect(text(output.refund)).toMatch(/^\[crashlab\] E_FORK_BLOCKED: .*MCP tool "issue_refund"/)
    const refund = run.steps.find((s): s is ToolStep => s.type === 'tool' && s.name === 'issue_refund')
    expect(refund).toMatchObject({ blocked: true, args: { id: 'A17', amount: 490 } })
    expect(logged()).toHaveLength(before)
  })
})
