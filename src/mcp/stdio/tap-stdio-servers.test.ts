import { createRequire } from 'node:module'
import { afterEach, describe, expect, it } from 'vitest'
import { isJsonRpcRequest } from './json-rpc.ts'
import { recordedAnswerer } from './recorded-answerer.ts'
import { type StdioTap, tapStdioServers } from './tap-stdio-servers.ts'
import { MCP_CLIENTS, type McpSession, SERVER_SCRIPT, serverLog } from './test-clients.ts'
import type { StdioMessageEvent, StdioMiss, StdioSpawn } from './types.ts'

const childProcess = createRequire(import.meta.url)(
  'node:child_process',
) as typeof import('node:child_process')
const ORIGINAL_SPAWN = childProcess.spawn

const isTestServer = (spawn: StdioSpawn) => spawn.args.includes(SERVER_SCRIPT)

let tap: StdioTap | undefined
afterEach(() => {
  tap?.uninstall()
  tap = undefined
})

/** The session every client runs: list the tools, read an order, refund it, then `more` if given. */
async function runSession(connect: () => Promise<McpSession>, more?: (session: McpSession) => Promise<void>) {
  const session = await connect()
  try {
    const result = {
      tools: await session.listTools(),
      read: await session.callTool('get_order', { id: 'A17' }),
      refund: await session.callTool('issue_refund', { id: 'A17', amount: 49 }),
    }
    await more?.(session)
    return result
  } finally {
    await session.close()
  }
}

const requests = (events: StdioMessageEvent[]) =>
  events.flatMap((e) => (e.direction === 'to-server' && isJsonRpcRequest(e.message) ? [e.message] : []))

describe.each(MCP_CLIENTS)('the stdio tap with $name', (client) => {
  it('records a live session, then replays it without starting the server', async () => {
    const log = serverLog()
    const server = {
      command: process.execPath,
      args: [SERVER_SCRIPT],
      env: { MCP_TEST_LOG: log.path, MCP_TEST_NOISE: '1' },
    }

    const events: StdioMessageEvent[] = []
    tap = tapStdioServers({
      decide: (s) => (isTestServer(s) ? 'live' : 'ignore'),
      onMessage: (e) => events.push(e),
    })
    const live = await runSession(() => client.connect(server))
    tap.uninstall()

    expect(live).toEqual({
      tools: ['get_order', 'issue_refund', 'count'],
      read: 'order A17: 1 kettle, 49 EUR',
      refund: 'refunded 49 EUR on A17',
    })
    expect(log.starts()).toBe(client.spawnsPerSession)
    expect(log.runs()).toEqual(['get_order A17', 'issue_refund A17 49'])
    const spawnIds = [...new Set(events.map((e) => e.spawnId))]
    expect(spawnIds.map((id) => requests(events.filter((e) => e.spawnId === id))[0]?.method)).toEqual(
      client.opens,
    )
    const methods = requests(events).map((r) => r.method)
    expect(methods).toContain('initialize')
    expect(methods.filter((m) => m === 'tools/call')).toHaveLength(2)
    expect(methods).toContain('tools/list')
    // Every request got its response on the same spawn.
    for (const request of requests(events)) {
      const answered = events.some(
        (e) =>
          e.direction === 'to-client' &&
          e.spawnId === events.find((x) => x.message === request)?.spawnId &&
          'id' in e.message &&
          e.message.id === request.id &&
          !('method' in e.message),
      )
      expect(answered, `${request.method} #${request.id} answered`).toBe(true)
    }
    // The server's log line on stdout is not a message.
    expect(events.every((e) => e.message.jsonrpc === '2.0')).toBe(true)

    const misses: StdioMiss[] = []
    const spawned: StdioSpawn[] = []
    tap = tapStdioServers({
      decide: (s) => {
        spawned.push(s)
        return 'replay'
      },
      answer: recordedAnswerer(events),
      onMiss: (miss) => misses.push(miss),
    })
    let missesBefore = -1
    const replayed = await runSession(
      () => client.connect(server),
      async (session) => {
        missesBefore = misses.length
        // A call the recording does not hold: the client gets an error naming the tool, and onMiss fires.
        await expect(session.callTool('issue_refund', { id: 'A17', amount: 99 })).rejects.toThrow(
          /recording holds no tools\/call of tool "issue_refund"/,
        )
      },
    )
    expect(replayed).toEqual(live)
    expect(missesBefore).toBe(0)
    expect(spawned).toHaveLength(client.spawnsPerSession)
    expect(misses).toHaveLength(1)
    const miss = misses.find((m) => m.request.method === 'tools/call')
    expect(miss?.error.code).toBe('E_MCP_REPLAY_MISSING')
    expect(miss?.error.message).toContain('tools/call of tool "issue_refund"')
    expect(miss?.request.params).toMatchObject({ arguments: { id: 'A17', amount: 99 } })
    expect(log.starts()).toBe(client.spawnsPerSession)
    expect(log.runs()).toHaveLength(2)

    tap.uninstall()
    expect(childProcess.spawn).toBe(ORIGINAL_SPAWN)
    // After uninstall a spawn is the real one again.
    const after = await runSession(() => client.connect(server))
    expect(after).toEqual(live)
    expect(log.starts()).toBe(2 * client.spawnsPerSession)
    expect(log.runs()).toHaveLength(4)
  })
})
