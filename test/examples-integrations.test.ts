import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { runFixture } from './projects/run-fixture.ts'

// examples/integrations is its own Vitest project with the crashlab plugin: one support agent each on
// the Vercel AI SDK, the OpenAI Agents SDK, LangChain.js and Mastra, and one (on the Agents SDK) whose
// tools are on an MCP server over stdio. Under CI it replays the committed cassettes (nothing is
// written, so it runs in place): the scripted provider each spec starts gets no request, no refund is
// issued and the MCP server never starts (it logs its starts and refunds to FIXTURE_LOG).
const DIR = join(import.meta.dirname, '..', 'examples', 'integrations')
const FRAMEWORKS = ['langchain', 'mastra', 'mcp', 'openai-agents', 'vercel-ai']
const MCP_SERVER = 'stdio:node mcp/orders-server.ts'

interface Step {
  type: string
  name?: string
  label?: string
  sideEffects?: boolean
  request?: { url?: string; wire?: { url: string } }
  mcp?: { server: string; request: { url: string } }
}
const stepsOf = (file: string) =>
  (JSON.parse(readFileSync(file, 'utf8')) as { run: { steps: Step[] } }).run.steps

it('the integration examples replay their committed cassettes offline', { timeout: 120_000 }, async () => {
  const run = await runFixture(DIR, ['run'], { ci: true })
  if (run.code !== 0) throw new Error(run.output)
  expect(run.output).toMatch(/Test Files\s+5 passed \(5\)/)
  expect(run.output).toMatch(/Tests\s+15 passed \(15\)/)
  expect(run.output).toContain('cassettes: 0 recorded · 10 replayed (mode replay)')
  // One line per spec; a start or a refund of the MCP server would add its own lines.
  expect(run.log).toEqual(FRAMEWORKS.map(() => ({ requests: 0, refunds: 0 })))
})

it('the committed cassettes hold only model calls to the scripted provider and tool calls', () => {
  for (const framework of FRAMEWORKS) {
    const folder = join(DIR, framework, '__cassettes__', `${framework}.spec.ts`)
    const files = readdirSync(folder)
      .filter((f) => f.endsWith('.cassette.json'))
      .sort()
    expect(files, framework).toHaveLength(2)
    for (const file of files) {
      const steps = stepsOf(join(folder, file))
      // No trace upload, telemetry or other `http` step: the frameworks only talked to the model, and
      // the MCP agent to its server too (the Agents SDK lists the server's tools at each turn).
      expect(
        steps.map((s) => s.type),
        `${framework}/${file}`,
      ).toEqual(
        framework === 'mcp'
          ? ['http', 'llm', 'tool', 'http', 'llm', 'tool', 'http', 'llm']
          : ['llm', 'tool', 'llm', 'tool', 'llm'],
      )
      for (const step of steps.filter((s) => s.type === 'llm'))
        expect(step.request?.wire?.url, `${framework}/${file}`).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\//)
      if (framework !== 'mcp') continue
      for (const step of steps.filter((s) => s.type === 'http')) {
        expect(step.label).toBe('mcp:tools/list')
        expect(step.request?.url).toBe(MCP_SERVER)
      }
      // The tool steps are the MCP calls, their side effects from the server's annotations.
      expect(
        steps
          .filter((s) => s.type === 'tool')
          .map((s) => [s.name, s.sideEffects, s.mcp?.server, s.mcp?.request.url]),
      ).toEqual([
        ['get_order', false, 'orders-server', MCP_SERVER],
        ['issue_refund', true, 'orders-server', MCP_SERVER],
      ])
    }
  }
})

it('the MCP example keeps the handshake made in beforeAll in its file MCP cassette', () => {
  const folder = join(DIR, 'mcp', '__cassettes__', 'mcp.spec.ts')
  expect(readdirSync(folder).filter((f) => !f.endsWith('.cassette.json'))).toEqual(['outside-tests.mcp.json'])
  const steps = stepsOf(join(folder, 'outside-tests.mcp.json'))
  // The Agents SDK probes the version on a sibling process, then opens its session.
  expect(steps.map((s) => [s.type, s.label, s.request?.url])).toEqual([
    ['http', 'mcp:server/discover', MCP_SERVER],
    ['http', 'mcp:initialize', MCP_SERVER],
  ])
})
