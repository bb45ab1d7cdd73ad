import type { ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createRequire } from 'node:module'
import { afterEach, describe, expect, it } from 'vitest'
import type { JsonRpcRequest } from './json-rpc.ts'
import { type StdioTap, type TapStdioServersOptions, tapStdioServers } from './tap-stdio-servers.ts'
import type { StdioMiss } from './types.ts'

const childProcess = createRequire(import.meta.url)(
  'node:child_process',
) as typeof import('node:child_process')

let tap: StdioTap | undefined
afterEach(() => {
  tap?.uninstall()
  tap = undefined
})

const initialize = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18' } }

/** A replayed spawn of a server that was never installed: `answer` alone serves it. */
function replay(
  options: Partial<TapStdioServersOptions> = {},
  spawnOptions: object = { stdio: ['pipe', 'pipe', 'inherit'] },
) {
  tap = tapStdioServers({ decide: () => 'replay', ...options })
  return childProcess.spawn('definitely-not-installed-mcp-server', ['--stdio'], spawnOptions)
}

/** The JSON lines a child writes to stdout until `count` arrived. */
async function readLines(child: ChildProcess, count: number): Promise<unknown[]> {
  const lines: unknown[] = []
  let text = ''
  for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
    text += chunk.toString()
    const parts = text.split('\n')
    text = parts.pop() ?? ''
    lines.push(...parts.map((l) => JSON.parse(l)))
    if (lines.length >= count) break
  }
  return lines
}

describe('a replayed stdio server', () => {
  it('starts no process: spawn on the next tick, no pid, stderr only when piped', async () => {
    const child = replay({ answer: () => [] })
    let spawned = false
    child.on('spawn', () => {
      spawned = true
    })
    expect(spawned).toBe(false)
    await once(child, 'spawn')
    expect(child.pid).toBeUndefined()
    expect(child.stderr).toBeNull()
    expect(child.exitCode).toBeNull()
    const piped = childProcess.spawn('definitely-not-installed-mcp-server', [])
    expect(piped.stderr).not.toBeNull()
    piped.kill()
  })

  it('answers each request from answer() with its messages, and notifications not at all', async () => {
    const seen: JsonRpcRequest[] = []
    const child = replay({
      answer: (_server, request) => {
        seen.push(request)
        return [
          { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info' } },
          { jsonrpc: '2.0', id: request.id, result: { method: request.method } },
        ]
      },
    })
    const line = (m: object) => `${JSON.stringify(m)}\n`
    const text =
      line(initialize) +
      line({ jsonrpc: '2.0', method: 'notifications/initialized' }) +
      line({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
    // One request split across writes, a notification and a request in one chunk.
    child.stdin?.write(text.slice(0, 20))
    child.stdin?.write(text.slice(20))
    expect(await readLines(child, 4)).toEqual([
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info' } },
      { jsonrpc: '2.0', id: 0, result: { method: 'initialize' } },
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info' } },
      { jsonrpc: '2.0', id: 1, result: { method: 'tools/list' } },
    ])
    expect(seen.map((r) => r.method)).toEqual(['initialize', 'tools/list'])
    child.kill()
  })

  it('answers what answer() cannot serve, or throws on, with a JSON-RPC error that names it, and reports the miss', async () => {
    const misses: StdioMiss[] = []
    const child = replay({
      answer: (_server, request) => {
        if (request.method === 'tools/list') throw new Error('store unreadable')
        return undefined
      },
      onMiss: (miss) => misses.push(miss),
    })
    child.stdin?.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'issue_refund', arguments: { amount: 99 } } })}\n`,
    )
    child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })}\n`)
    const [call, list] = (await readLines(child, 2)) as Array<{
      id: number
      error: { code: number; message: string }
    }>
    expect(call?.id).toBe(1)
    expect(call?.error.code).toBe(-32603)
    expect(call?.error.message).toMatch(
      /^\[crashlab\] MCP server `definitely-not-installed-mcp-server --stdio` is replayed and its recording holds no tools\/call of tool "issue_refund" with arguments \{"amount":99\}/,
    )
    expect(list?.error.message).toContain('holds no tools/list request')
    expect(misses.map((m) => [m.request.id, m.error.code, m.spawnId])).toEqual([
      [1, 'E_MCP_REPLAY_MISSING', 1],
      [2, 'E_MCP_REPLAY_MISSING', 1],
    ])
    expect(misses[1]?.error.cause).toEqual(new Error('store unreadable'))
    child.kill()
  })

  it('exits 0 when stdin ends, once the requests it holds are answered', async () => {
    const child = replay({
      answer: async (_server, request) => {
        await new Promise((resolve) => setTimeout(resolve, 30))
        return [{ jsonrpc: '2.0', id: request.id, result: {} }]
      },
    })
    const out: string[] = []
    child.stdout?.on('data', (chunk: Buffer) => out.push(chunk.toString()))
    const events: string[] = []
    child.on('exit', (code, signal) => events.push(`exit ${code} ${signal}`))
    child.stdin?.end(`${JSON.stringify(initialize)}\n`)
    const [code, signal] = await once(child, 'close')
    expect([code, signal]).toEqual([0, null])
    expect(events).toEqual(['exit 0 null'])
    expect(out.join('')).toBe('{"jsonrpc":"2.0","id":0,"result":{}}\n')
    expect(child.exitCode).toBe(0)
  })

  it('ends on kill() with the signal, as a killed process does', async () => {
    const child = replay({ answer: () => [] })
    expect(child.kill('SIGKILL')).toBe(true)
    const [code, signal] = await once(child, 'close')
    expect([code, signal]).toEqual([null, 'SIGKILL'])
    expect(child.exitCode).toBeNull()
    expect(child.signalCode).toBe('SIGKILL')
    expect(child.kill()).toBe(false)
  })

  it('ends with an AbortError when the spawn signal aborts (how @ai-sdk/mcp closes)', async () => {
    const controller = new AbortController()
    const child = replay(
      { answer: () => [] },
      { stdio: ['pipe', 'pipe', 'inherit'], signal: controller.signal },
    )
    await once(child, 'spawn')
    const error = once(child, 'error')
    controller.abort()
    const [err] = (await error) as [Error]
    expect(err.name).toBe('AbortError')
    const [, signal] = await once(child, 'close')
    expect(signal).toBe('SIGTERM')
  })
})
