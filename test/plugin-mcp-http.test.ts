import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Run } from '../src/index.ts'
import { openStore } from '../src/store/index.ts'
import { runBin } from './helpers/built-bin.ts'
import {
  type ChildRun,
  cassettesOf,
  copyProject,
  expectExit,
  readCassette,
  removeProject,
  runFixture,
} from './projects/run-fixture.ts'

// test/projects/mcp-http: agents on the OpenAI Agents SDK (MCPServerStreamableHttp) and the AI SDK
// (@ai-sdk/mcp's HTTP transport) whose tools are on a real MCP server over Streamable HTTP (the SDK's
// McpServer on loopback, started by the spec file), connected in beforeAll, outside any test; the model
// is the scripted provider on loopback. Recorded, replayed with no model server and no MCP server, and
// forked through the built `crashlab fork` with the MCP server up: the destructive call never reaches it.
const SPECS = {
  'agents-sdk.spec.ts': 'refund with the Agents SDK over MCP HTTP',
  'ai-sdk.spec.ts': 'refund with the AI SDK over MCP HTTP',
} as const
type Spec = keyof typeof SPECS
let dir: string
let storeDir: string
let recorded: ChildRun

interface Logged {
  file: string
  event?: string
  connections?: number
  runs?: { get_order: number; issue_refund: number }
  requests?: number
}
interface StepView {
  type: string
  name?: string
  label?: string
  sideEffects?: boolean
  blocked?: boolean
  error?: { code?: string } | null
  mcp?: { server: string; sideEffectsFrom?: string; request: { url: string } }
  request?: { url: string }
}

/** What the MCP servers of a run logged when they closed: connections accepted and tools run, summed. */
function served(log: readonly Logged[]) {
  const servers = log.filter((e) => e.event === 'orders-server')
  return {
    servers: servers.length,
    connections: servers.reduce((n, e) => n + (e.connections ?? 0), 0),
    get_order: servers.reduce((n, e) => n + (e.runs?.get_order ?? 0), 0),
    issue_refund: servers.reduce((n, e) => n + (e.runs?.issue_refund ?? 0), 0),
  }
}
const modelRequests = (log: readonly Logged[]) => log.reduce((n, e) => n + (e.requests ?? 0), 0)
const logOf = (run: ChildRun) => run.log as unknown as Logged[]

function stepsOf(spec: Spec, name: string): StepView[] {
  return (JSON.parse(readCassette(dir, spec, name)) as { run: { steps: StepView[] } }).run.steps
}

beforeAll(async () => {
  dir = copyProject('mcp-http')
  storeDir = mkdtempSync(join(tmpdir(), 'crashlab-mcp-http-store-'))
  recorded = await runFixture(dir, ['run'])
  expectExit(recorded, 0)
}, 180_000)
afterAll(() => {
  removeProject(dir)
  rmSync(storeDir, { recursive: true, force: true })
})

describe('MCP servers over Streamable HTTP under the plugin', { timeout: 180_000 }, () => {
  it('record: the handshake made in beforeAll goes to the file MCP cassette, the tool calls to the test', () => {
    expect(recorded.output).toContain('cassettes: 2 recorded · 0 replayed (mode missing)')
    for (const spec of Object.keys(SPECS) as Spec[]) {
      expect(cassettesOf(dir, spec)).toEqual(['outside-tests.mcp.json', `${SPECS[spec]}.cassette.json`])
      const outside = stepsOf(spec, 'outside-tests.mcp.json')
      expect(outside.map((s) => s.label)).toContain('mcp:initialize')
      expect(
        outside.every(
          (s) => s.type === 'http' && /^http:\/\/127\.0\.0\.1:\d+\/mcp$/.test(s.request?.url ?? ''),
        ),
      ).toBe(true)
      const steps = stepsOf(spec, `${SPECS[spec]}.cassette.json`)
      expect(steps.some((s) => s.label === 'mcp:initialize')).toBe(false)
      const tools = steps.filter((s) => s.type === 'tool')
      expect(tools.map((s) => s.name)).toEqual(['get_order', 'issue_refund'])
      // From the server's annotations: get_order is readOnlyHint, issue_refund destructiveHint.
      expect(tools.map((s) => s.sideEffects)).toEqual([false, true])
      for (const step of tools) {
        expect(step.mcp?.server).toBe('orders')
        expect(step.mcp?.sideEffectsFrom).toBe('annotations')
      }
    }
    const server = served(logOf(recorded))
    expect(server).toMatchObject({ servers: 2, get_order: 2, issue_refund: 2 })
    expect(server.connections).toBeGreaterThan(0)
    expect(modelRequests(logOf(recorded))).toBe(6)
  })

  it('replay under CI=true with no model server and no MCP server: passes, nothing sent, no tool runs', async () => {
    const replayed = await runFixture(dir, ['run'], {
      ci: true,
      env: { FIXTURE_PROVIDER: 'off', FIXTURE_MCP: 'off' },
    })
    expectExit(replayed, 0)
    expect(replayed.output).toContain('cassettes: 0 recorded · 2 replayed (mode replay)')
    expect(served(logOf(replayed))).toEqual({ servers: 0, connections: 0, get_order: 0, issue_refund: 0 })
    expect(modelRequests(logOf(replayed))).toBe(0)
  })

  it('an agent whose MCP tool set changed since the recording: the replay fails naming the tool', async () => {
    const replayed = await runFixture(dir, ['run', 'agents-sdk.spec.ts'], {
      ci: true,
      env: { FIXTURE_PROVIDER: 'off', FIXTURE_MCP: 'off', FIXTURE_BLOCKED_TOOL: 'issue_refund' },
    })
    expectExit(replayed, 1)
    expect(replayed.output).toContain('E_DIVERGENCE')
    expect(replayed.output).toMatch(/diverged at step \d+: the agent made a openai-chat/)
    expect(replayed.output).toContain('tool "issue_refund"')
    expect(served(logOf(replayed))).toEqual({ servers: 0, connections: 0, get_order: 0, issue_refund: 0 })
  })

  it('replay under CI=true with the MCP server up: it gets no connection, no tool runs', async () => {
    const replayed = await runFixture(dir, ['run'], { ci: true, env: { FIXTURE_PROVIDER: 'off' } })
    expectExit(replayed, 0)
    expect(served(logOf(replayed))).toEqual({ servers: 2, connections: 0, get_order: 0, issue_refund: 0 })
    expect(modelRequests(logOf(replayed))).toBe(0)
  })

  it('a test recorded after the file MCP cassette exists: its calls go on a live session opened for the replayed handshake', async () => {
    const copy = copyProject(dir, { withCassettes: true })
    try {
      rmSync(join(copy, '__cassettes__', 'ai-sdk.spec.ts', `${SPECS['ai-sdk.spec.ts']}.cassette.json`))
      const rerecorded = await runFixture(copy, ['run', 'ai-sdk.spec.ts'])
      expectExit(rerecorded, 0)
      expect(rerecorded.output).toContain('cassettes: 1 recorded · 0 replayed (mode missing)')
      expect(served(logOf(rerecorded))).toMatchObject({ servers: 1, get_order: 1, issue_refund: 1 })
    } finally {
      removeProject(copy)
    }
  })

  // The fork goes live at step N with a patch: the model then asks for a refund the parent never made,
  // on a destructive MCP tool: blocked, never sent. The MCP server and the model server run in the
  // fork's Vitest child, whose client got its handshake from the file's MCP cassette.
  it.each([
    // The AI SDK, at the model step that chose issue_refund, told the order's total is 12 (not 49):
    // issue_refund(A17, 12) is blocked; get_order was before the fork step.
    {
      spec: 'ai-sdk.spec.ts' as const,
      at: 3,
      patch:
        'kind: tool_result\ntool: get_order\nresult: { order_id: A17, item: kettle, total: 12, status: delivered damaged }\n',
      blockedAt: 4,
      requests: 2,
      getOrder: 0,
    },
    // The Agents SDK, at its first model step, asked about order A18: get_order(A18) is read-only and
    // new, so it goes live (on a live MCP session opened for the replayed one); issue_refund(A17, 30) is
    // blocked. (At a later model step its live answer would carry the scripted provider's first tool
    // call id again, as the provider starts afresh in the fork, which the Agents SDK refuses as a reused
    // call id; a real provider's ids do not repeat.)
    {
      spec: 'agents-sdk.spec.ts' as const,
      at: 1,
      patch: 'kind: message\nop: substitute\nrole: user\nindex: 0\nfind: A17\nreplace: A18\n',
      blockedAt: 5,
      requests: 3,
      getOrder: 1,
    },
  ])(
    'crashlab fork of $spec at step $at: issue_refund is blocked, the server never runs it',
    async ({ spec, at, patch, blockedAt, requests, getOrder }) => {
      const cassette = join(dir, '__cassettes__', spec, `${SPECS[spec]}.cassette.json`)
      const imported = await runBin(dir, { CRASHLAB_DIR: storeDir }, ['import', cassette])
      expect(imported.code, imported.stderr).toBe(0)
      const parentId = /imported .* as (\S+) \(/.exec(imported.stdout)?.[1] as string
      writeFileSync(join(dir, 'patch.yaml'), patch)
      const logDir = mkdtempSync(join(tmpdir(), 'crashlab-mcp-http-log-'))
      const logFile = join(logDir, 'log.jsonl')
      try {
        const r = await runBin(dir, { CRASHLAB_DIR: storeDir, FIXTURE_LOG: logFile }, [
          'fork',
          parentId,
          '--at',
          String(at),
          '--patch',
          'patch.yaml',
        ])
        expect(r.code, `${r.stdout}${r.stderr}`).toBe(0)
        expect(r.stdout).toContain('1 blocked')
        const log = existsSync(logFile)
          ? readFileSync(logFile, 'utf8')
              .trim()
              .split('\n')
              .map((l) => JSON.parse(l) as Logged)
          : []
        // The server was up in the fork; the destructive call never reached it, nor did the replayed
        // handshake or a get_order call the parent holds.
        const server = served(log)
        expect(server).toMatchObject({ servers: 1, get_order: getOrder, issue_refund: 0 })
        expect(server.connections > 0).toBe(getOrder > 0)
        expect(modelRequests(log)).toBe(requests)

        const forkId = /stored as (\S+) \(fork of/.exec(r.stdout)?.[1] as string
        const store = await openStore({ dir: storeDir, config: false })
        let forked: Run
        try {
          forked = store.load(forkId)
        } finally {
          store.close()
        }
        expect(forked.links).toMatchObject({ forkedFrom: parentId, forkStep: at })
        const blocked = forked.steps[blockedAt] as unknown as StepView
        expect(blocked).toMatchObject({
          type: 'tool',
          name: 'issue_refund',
          blocked: true,
          sideEffects: true,
        })
        expect(blocked.error?.code).toBe('E_FORK_BLOCKED')
        expect(blocked.mcp?.server).toBe('orders')
        const tools = forked.steps.filter((s) => s.type === 'tool') as unknown as StepView[]
        expect(tools.map((s) => s.name)).toEqual(['get_order', 'issue_refund'])
        expect(tools[0]?.error ?? null).toBeNull()
      } finally {
        rmSync(logDir, { recursive: true, force: true })
      }
    },
  )
})
