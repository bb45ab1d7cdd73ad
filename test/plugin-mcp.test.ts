import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type ChildRun,
  cassettesOf,
  copyProject,
  expectExit,
  readCassette,
  removeProject,
  runFixture,
} from './projects/run-fixture.ts'

// test/projects/mcp: agents on the OpenAI Agents SDK (MCPServerStdio) and the AI SDK (@ai-sdk/mcp's
// stdio transport) whose tools are on a real MCP server over stdio, connected in beforeAll, outside any
// test; the model is the scripted provider on loopback. Recorded, then replayed with no model server and
// the MCP server never started.
const SPECS = ['agents-sdk.spec.ts', 'ai-sdk.spec.ts']
const copies: string[] = []
let dir: string
let recorded: ChildRun

interface Logged {
  file: string
  event?: string
  tool?: string
  requests?: number
}
interface StepView {
  type: string
  name?: string
  label?: string
  sideEffects?: boolean
  mcp?: { server: string; request: { url: string } }
  request?: { url: string }
}

const entries = (run: ChildRun) => run.log as unknown as Logged[]
const starts = (run: ChildRun) =>
  entries(run).filter((e) => e.file === 'orders-server' && e.event === 'start')
const toolRuns = (run: ChildRun) =>
  entries(run).filter((e) => e.file === 'orders-server' && e.event === 'run')
const modelRequests = (run: ChildRun) =>
  entries(run)
    .filter((e) => e.requests !== undefined)
    .reduce((n, e) => n + (e.requests ?? 0), 0)

function stepsOf(file: string, name: string): StepView[] {
  return (JSON.parse(readCassette(dir, file, name)) as { run: { steps: StepView[] } }).run.steps
}

beforeAll(async () => {
  dir = copyProject('mcp')
  copies.push(dir)
  recorded = await runFixture(dir, ['run'])
  expectExit(recorded, 0)
}, 180_000)
afterAll(() => {
  for (const copy of copies) removeProject(copy)
})

describe('MCP servers over stdio under the plugin', { timeout: 180_000 }, () => {
  it('record: the handshake made in beforeAll goes to the file MCP cassette, the tool calls to the test', () => {
    expect(recorded.output).toContain('cassettes: 2 recorded · 0 replayed (mode missing)')
    for (const spec of SPECS) {
      const files = cassettesOf(dir, spec)
      expect(files).toContain('outside-tests.mcp.json')
      const outside = stepsOf(spec, 'outside-tests.mcp.json')
      expect(outside.map((s) => s.label)).toContain('mcp:initialize')
      expect(
        outside.every((s) => s.type === 'http' && s.request?.url === 'stdio:node orders-server.mjs'),
      ).toBe(true)
      const testCassette = files.find((f) => f.endsWith('.cassette.json'))
      if (!testCassette) throw new Error(`no test cassette for ${spec}: ${files.join(', ')}`)
      const tools = stepsOf(spec, testCassette).filter((s) => s.type === 'tool')
      expect(tools.map((s) => s.name)).toEqual(['get_order', 'issue_refund'])
      // From the server's annotations: get_order is readOnlyHint, issue_refund destructiveHint.
      expect(tools.map((s) => s.sideEffects)).toEqual([false, true])
      for (const step of tools) {
        expect(step.mcp?.server).toBe('orders')
        expect(step.mcp?.request.url).toBe('stdio:node orders-server.mjs')
      }
    }
    // The Agents SDK starts a probe process and the session's own; the AI SDK one.
    expect(starts(recorded)).toHaveLength(3)
    expect(toolRuns(recorded)).toHaveLength(4)
    expect(modelRequests(recorded)).toBe(6)
  })

  it('replay under CI=true with no model server: passes, the MCP server never starts, no tool runs', async () => {
    const replayed = await runFixture(dir, ['run'], { ci: true, env: { FIXTURE_PROVIDER: 'off' } })
    expectExit(replayed, 0)
    expect(replayed.output).toContain('cassettes: 0 recorded · 2 replayed (mode replay)')
    expect(starts(replayed)).toHaveLength(0)
    expect(toolRuns(replayed)).toHaveLength(0)
    expect(modelRequests(replayed)).toBe(0)
  })

  it('replay under CI=true without the file MCP cassette: the server is refused, the file fails naming it', async () => {
    const copy = copyProject(dir, { withCassettes: true })
    copies.push(copy)
    rmSync(join(copy, '__cassettes__', 'ai-sdk.spec.ts', 'outside-tests.mcp.json'))
    const replayed = await runFixture(copy, ['run', 'ai-sdk.spec.ts'], {
      ci: true,
      env: { FIXTURE_PROVIDER: 'off' },
    })
    expectExit(replayed, 1)
    expect(replayed.output).toContain('MCP server `node orders-server.mjs` was started in a replay')
    expect(toolRuns(replayed)).toHaveLength(0)
    expect(existsSync(join(copy, '__cassettes__', 'ai-sdk.spec.ts', 'outside-tests.mcp.json'))).toBe(false)
  })

  it("a tool renamed in the server's code since the recording: the replay fails naming both tools", async () => {
    const copy = copyProject(dir, { withCassettes: true })
    copies.push(copy)
    const server = join(copy, 'orders-server.mjs')
    writeFileSync(server, readFileSync(server, 'utf8').replace("'issue_refund',", "'refund_order',"))
    const replayed = await runFixture(copy, ['run'], { ci: true, env: { FIXTURE_PROVIDER: 'off' } })
    expectExit(replayed, 1)
    expect(replayed.output).toContain(
      'the tools of MCP server `node orders-server.mjs` changed since the recording',
    )
    expect(replayed.output).toContain('tool "issue_refund" was removed; tool "refund_order" was added')
    // Both specs fail, each naming the tools; the server was started only to list them.
    expect(replayed.output).toContain('2 failed')
    expect(toolRuns(replayed)).toHaveLength(0)
  })

  it("the server's code changed but not its tools: the replay passes, no tool runs", async () => {
    const copy = copyProject(dir, { withCassettes: true })
    copies.push(copy)
    const server = join(copy, 'orders-server.mjs')
    writeFileSync(server, `${readFileSync(server, 'utf8')}\n// a comment, and nothing else\n`)
    const replayed = await runFixture(copy, ['run'], { ci: true, env: { FIXTURE_PROVIDER: 'off' } })
    expectExit(replayed, 0)
    expect(toolRuns(replayed)).toHaveLength(0)
    expect(modelRequests(replayed)).toBe(0)
  })

  it('a file MCP cassette is written only by a run that records', () => {
    const before = readFileSync(
      join(dir, '__cassettes__', 'agents-sdk.spec.ts', 'outside-tests.mcp.json'),
      'utf8',
    )
    expect(JSON.parse(before).run.steps.length).toBeGreaterThan(0)
  })
})
