import { describe, expect, it } from 'vitest'
import type { JsonRpcRequest } from './json-rpc.ts'
import { recordedAnswerer } from './recorded-answerer.ts'
import type { StdioMessageEvent } from './types.ts'

const server = { command: 'node', args: ['server.mjs'] }
const other = { command: 'node', args: ['other.mjs'] }

function exchange(
  spawnId: number,
  id: number,
  method: string,
  params: unknown,
  result: unknown,
): StdioMessageEvent[] {
  return [
    { server, spawnId, direction: 'to-server', message: { jsonrpc: '2.0', id, method, params } },
    { server, spawnId, direction: 'to-client', message: { jsonrpc: '2.0', id, result } },
  ]
}

const call = (id: number, amount: number): JsonRpcRequest => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'issue_refund', arguments: { amount, id: 'A17' } },
})

describe('recordedAnswerer', () => {
  it('matches method and params, not the id, and answers with the live id', async () => {
    const answer = recordedAnswerer(
      exchange(1, 7, 'tools/call', call(0, 49).params, { content: ['refunded'] }),
    )
    // Same params, keys in another order, another id.
    const request = {
      jsonrpc: '2.0',
      id: 'live-3',
      method: 'tools/call',
      params: { arguments: { id: 'A17', amount: 49 }, name: 'issue_refund' },
    } as const
    expect(await answer(server, request)).toEqual([
      { jsonrpc: '2.0', id: 'live-3', result: { content: ['refunded'] } },
    ])
  })

  it('serves identical requests in recorded order, each answer once, then misses', async () => {
    const answer = recordedAnswerer([
      ...exchange(1, 1, 'tools/list', undefined, { n: 1 }),
      ...exchange(1, 2, 'tools/list', undefined, { n: 2 }),
    ])
    const list = { jsonrpc: '2.0', id: 9, method: 'tools/list' } as const
    expect(await answer(server, list)).toEqual([{ jsonrpc: '2.0', id: 9, result: { n: 1 } }])
    expect(await answer(server, list)).toEqual([{ jsonrpc: '2.0', id: 9, result: { n: 2 } }])
    expect(await answer(server, list)).toBeUndefined()
  })

  it('misses other params, another server, and requests with no recorded response', async () => {
    const answer = recordedAnswerer([
      ...exchange(1, 1, 'tools/call', call(0, 49).params, { ok: true }),
      { server, spawnId: 1, direction: 'to-server', message: { jsonrpc: '2.0', id: 2, method: 'ping' } },
    ])
    expect(await answer(server, call(5, 99))).toBeUndefined()
    expect(await answer(other, call(5, 49))).toBeUndefined()
    expect(await answer(server, { jsonrpc: '2.0', id: 6, method: 'ping' })).toBeUndefined()
    expect(await answer(server, call(5, 49))).toEqual([{ jsonrpc: '2.0', id: 5, result: { ok: true } }])
  })

  it('pairs requests and responses within their spawn: two sessions reuse ids', async () => {
    // Interleaved: spawn 2's id 0 is answered before spawn 1's id 0.
    const answer = recordedAnswerer([
      {
        server,
        spawnId: 1,
        direction: 'to-server',
        message: { jsonrpc: '2.0', id: 0, method: 'server/discover' },
      },
      {
        server,
        spawnId: 2,
        direction: 'to-server',
        message: { jsonrpc: '2.0', id: 0, method: 'initialize' },
      },
      {
        server,
        spawnId: 2,
        direction: 'to-client',
        message: { jsonrpc: '2.0', id: 0, result: { init: true } },
      },
      {
        server,
        spawnId: 1,
        direction: 'to-client',
        message: { jsonrpc: '2.0', id: 0, error: { code: -32601, message: 'Method not found' } },
      },
    ])
    expect(await answer(server, { jsonrpc: '2.0', id: 4, method: 'initialize' })).toEqual([
      { jsonrpc: '2.0', id: 4, result: { init: true } },
    ])
    expect(await answer(server, { jsonrpc: '2.0', id: 5, method: 'server/discover' })).toEqual([
      { jsonrpc: '2.0', id: 5, error: { code: -32601, message: 'Method not found' } },
    ])
  })
})
