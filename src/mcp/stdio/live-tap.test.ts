import { type ChildProcess, spawn as esmSpawn } from 'node:child_process'
import { once } from 'node:events'
import { createRequire } from 'node:module'
import { afterEach, describe, expect, it } from 'vitest'
import { type StdioTap, tapStdioServers } from './tap-stdio-servers.ts'
import type { StdioDecision, StdioMessageEvent, StdioSpawn } from './types.ts'

const childProcess = createRequire(import.meta.url)(
  'node:child_process',
) as typeof import('node:child_process')
const ORIGINAL_SPAWN = childProcess.spawn

// A stand-in server: for each stdin line it logs a non-JSON line to stdout, then answers a JSON-RPC
// request with its id; it echoes a line that is no request.
const ECHO_SERVER = `
let rest = ''
process.stdin.on('data', (chunk) => {
  rest += chunk
  const lines = rest.split('\\n')
  rest = lines.pop()
  for (const line of lines) {
    let message
    try { message = JSON.parse(line) } catch {}
    if (message && message.id !== undefined) {
      process.stdout.write('log: got ' + message.method + '\\n' + JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { echo: message.method } }) + '\\n')
    } else if (!message) process.stdout.write('echo: ' + line + '\\n')
  }
})
`

let taps: StdioTap[] = []
afterEach(() => {
  for (const tap of taps.reverse()) tap.uninstall()
  taps = []
})

function live(onMessage: (e: StdioMessageEvent) => void, extra: { onError?: (e: unknown) => void } = {}) {
  const decided: StdioSpawn[] = []
  const tap = tapStdioServers({
    decide: (s) => {
      decided.push(s)
      return 'live'
    },
    onMessage,
    ...extra,
  })
  taps.push(tap)
  return decided
}

async function stdoutOf(child: ChildProcess): Promise<string> {
  let text = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    text += chunk.toString()
  })
  await once(child, 'close')
  return text
}

const line = (m: object) => `${JSON.stringify(m)}\n`
const initialize = { jsonrpc: '2.0', id: 0, method: 'initialize', params: {} }

describe('a live stdio spawn', () => {
  it('reports an MCP session from its opening request on, and passes every byte, log lines included, to the client', async () => {
    const events: StdioMessageEvent[] = []
    const decided = live((e) => events.push(e))
    const child = childProcess.spawn(process.execPath, ['-e', ECHO_SERVER], { cwd: process.cwd() })
    const out = stdoutOf(child)
    const text =
      line(initialize) +
      line({ jsonrpc: '2.0', method: 'notifications/initialized' }) +
      line({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
    // The opening request cut in two writes; a notification and a request in one.
    child.stdin.write(text.slice(0, 25))
    await new Promise((resolve) => setTimeout(resolve, 20))
    child.stdin.end(Buffer.from(text.slice(25)))
    expect(await out).toBe(
      'log: got initialize\n{"jsonrpc":"2.0","id":0,"result":{"echo":"initialize"}}\n' +
        'log: got tools/list\n{"jsonrpc":"2.0","id":1,"result":{"echo":"tools/list"}}\n',
    )
    expect(decided).toEqual([{ command: process.execPath, args: ['-e', ECHO_SERVER], cwd: process.cwd() }])
    expect(
      events.map((e) => [e.spawnId, e.direction, 'method' in e.message ? e.message.method : e.message.id]),
    ).toEqual([
      [1, 'to-server', 'initialize'],
      [1, 'to-server', 'notifications/initialized'],
      [1, 'to-server', 'tools/list'],
      [1, 'to-client', 0],
      [1, 'to-client', 1],
    ])
    expect(events[0]?.server).toMatchObject({
      command: process.execPath,
      args: ['-e', ECHO_SERVER],
      cwd: process.cwd(),
    })
  })

  it('leaves a process alone when the first line is no opening request: nothing reported, its streams unwrapped', async () => {
    const events: StdioMessageEvent[] = []
    live((e) => events.push(e))
    const child = childProcess.spawn(process.execPath, ['-e', ECHO_SERVER])
    const out = stdoutOf(child)
    child.stdin.write('status --short\n')
    expect(Object.hasOwn(child.stdin, 'write')).toBe(false)
    expect(Object.hasOwn(child.stdout, 'push')).toBe(false)
    child.stdin.end(line(initialize))
    expect(await out).toBe(
      'echo: status --short\nlog: got initialize\n{"jsonrpc":"2.0","id":0,"result":{"echo":"initialize"}}\n',
    )
    expect(events).toEqual([])
  })

  it('hands an error of onMessage to onError, and the session goes on', async () => {
    const errors: unknown[] = []
    live(
      () => {
        throw new Error('recorder full')
      },
      { onError: (e) => errors.push(e) },
    )
    const child = childProcess.spawn(process.execPath, ['-e', ECHO_SERVER])
    const out = stdoutOf(child)
    child.stdin.end(line(initialize))
    expect(await out).toContain('"result":{"echo":"initialize"}')
    expect(errors).toEqual([new Error('recorder full'), new Error('recorder full')])
  })
})

describe('installing and uninstalling the tap', () => {
  it('hooks the ES-module spawn too while installed, and restores both', async () => {
    taps.push(tapStdioServers({ decide: () => 'replay', answer: () => [] }))
    expect(childProcess.spawn).not.toBe(ORIGINAL_SPAWN)
    const replayed = esmSpawn('definitely-not-installed-mcp-server', [])
    expect(replayed.pid).toBeUndefined()
    replayed.kill()
    taps.pop()?.uninstall()
    expect(childProcess.spawn).toBe(ORIGINAL_SPAWN)
    expect(esmSpawn).toBe(ORIGINAL_SPAWN)
    const real = esmSpawn(process.execPath, ['-e', ''])
    expect(real.pid).toBeTypeOf('number')
    await once(real, 'close')
  })

  it('passes an ignored spawn to the real one, untouched', async () => {
    taps.push(tapStdioServers({ decide: () => 'ignore', onMessage: () => {} }))
    const child = childProcess.spawn(process.execPath, ['-e', ECHO_SERVER])
    expect(child.pid).toBeTypeOf('number')
    expect(Object.hasOwn(child.stdin as object, 'write')).toBe(false)
    child.stdin?.end()
    await once(child, 'close')
  })

  it('nests taps: the newest decides first, one that ignores hands the spawn to the one before', () => {
    const decisions: string[] = []
    const deciding = (name: string, decision: StdioDecision) => () => {
      decisions.push(name)
      return decision
    }
    const first = tapStdioServers({ decide: deciding('first', 'replay') })
    const second = tapStdioServers({ decide: deciding('second', 'ignore') })
    const replayed = childProcess.spawn('definitely-not-installed-mcp-server', [])
    expect(replayed.pid).toBeUndefined()
    replayed.kill()
    expect(decisions).toEqual(['second', 'first'])
    // Uninstalled out of order: the original spawn comes back with the last one.
    first.uninstall()
    const real = childProcess.spawn(process.execPath, ['-e', ''])
    expect(real.pid).toBeTypeOf('number')
    real.kill()
    expect(decisions).toEqual(['second', 'first', 'second'])
    expect(childProcess.spawn).not.toBe(ORIGINAL_SPAWN)
    second.uninstall()
    expect(childProcess.spawn).toBe(ORIGINAL_SPAWN)
  })
})
