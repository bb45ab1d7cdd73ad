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

// test/projects/any-host: `crashlab()` with no `hosts`, agents on the real OpenAI SDK and the AI SDK
// pointed at the scripted provider on 127.0.0.1, on a port picked at each start. crashlab recognises
// the model calls by their wire shape: recorded, then replayed when the server listens on another port,
// or on none.
const OPENAI_FILE = 'openai-agent.spec.ts'
const OPENAI_CASSETTE = 'refund through a model server on loopback.cassette.json'
const copies: string[] = []
let dir: string
let recorded: ChildRun

interface Logged {
  file: string
  url: string
  requests: number
  attempts?: number
}

const logged = (run: ChildRun, file: string) =>
  (run.log as unknown as Logged[]).find((entry) => entry.file === file)

beforeAll(async () => {
  dir = copyProject('any-host')
  copies.push(dir)
  recorded = await runFixture(dir, ['run'])
  expectExit(recorded, 0)
}, 120_000)
afterAll(() => {
  for (const copy of copies) removeProject(copy)
})

describe('model calls on a host the plugin does not list', { timeout: 120_000 }, () => {
  it('are recorded: the cassette holds the model steps, with their tokens', () => {
    expect(recorded.output).toContain('cassettes: 3 recorded · 0 replayed (mode missing)')
    expect(cassettesOf(dir, OPENAI_FILE)).toEqual([OPENAI_CASSETTE])
    const { run } = JSON.parse(readCassette(dir, OPENAI_FILE, OPENAI_CASSETTE)) as {
      run: { steps: Array<{ type: string }>; usage: { llmCalls: number; inputTokens: number } }
    }
    expect(run.steps.map((s) => s.type)).toEqual(['llm', 'tool', 'llm', 'tool', 'llm'])
    expect(run.usage.llmCalls).toBe(3)
    expect(run.usage.inputTokens).toBeGreaterThan(0)
    expect(logged(recorded, 'openai-agent')?.requests).toBe(3)
    expect(logged(recorded, 'ai-sdk-agent')?.requests).toBe(3)
  })

  it('replay under CI=true with the server on another port: passes, nothing reaches it', async () => {
    const replayed = await runFixture(dir, ['run'], { ci: true })
    expectExit(replayed, 0)
    expect(replayed.output).toContain('cassettes: 0 recorded · 3 replayed (mode replay)')
    for (const file of ['openai-agent', 'ai-sdk-agent']) {
      const before = logged(recorded, file)
      const now = logged(replayed, file)
      expect(now?.requests).toBe(0)
      expect(now?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      expect(now?.url).not.toBe(before?.url)
    }
  })

  it('replay under CI=true with no server listening: passes', async () => {
    const replayed = await runFixture(dir, ['run'], { ci: true, env: { FIXTURE_PROVIDER: 'off' } })
    expectExit(replayed, 0)
    expect(replayed.output).toContain('cassettes: 0 recorded · 3 replayed (mode replay)')
    expect(replayed.output).not.toContain('E_UNHANDLED_HOST')
  })

  it('the reporter warns about the agent that recorded no model call, and only about it', () => {
    const warnings = recorded.output.split('\n').filter((line) => line.includes('no model call was recorded'))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain('"an agent that only runs tools": agent "lookup-only" ran (1 tool call)')
    expect(warnings[0]).toContain('wrap(client)')
  })

  it('a divergence under the AI SDK with its default retries fails in one attempt, with the DivergenceError', async () => {
    const diverged = await runFixture(dir, ['run', 'ai-sdk-agent.spec.ts'], {
      ci: true,
      env: { FIXTURE_PROMPT: 'Refund my order A18, it never came' },
    })
    expectExit(diverged, 1)
    if (!logged(diverged, 'ai-sdk-agent')) throw new Error(diverged.output)
    expect(logged(diverged, 'ai-sdk-agent')).toMatchObject({ requests: 0, attempts: 1 })
    expect(diverged.output).toMatch(
      /FAIL {2}ai-sdk-agent\.spec\.ts > refund with the AI SDK\nDivergenceError: /,
    )
    expect(diverged.output).toContain(
      '"Refund my order A17, it arrived broken" → "Refund my order A18, it never came"',
    )
  })
})
