import { afterEach, describe, expect, it } from 'vitest'
import type { Run } from '../src/case/schema/run.ts'
import type { LlmStep } from '../src/case/schema/step.ts'
import { isCrashlabError } from '../src/errors.ts'
import { readAgentsTrace, readOtlp, tracesToRuns } from '../src/otel/index.ts'
import { replayRun } from '../src/rerun/replay-run.ts'
import { agentsPayloads } from './helpers/agents-payloads.ts'
import { tracedOrderBot } from './helpers/traced-order-bot.ts'

const ENTRY = {
  kind: 'module' as const,
  module: './test/fixtures/otel-replay/order-bot.ts',
  export: 'orderBot',
}
const QUESTION = 'Where is my order A17?'

afterEach(() => {
  for (const key of [
    'ORDER_BOT_API',
    'ORDER_BOT_STREAM',
    'ORDER_BOT_SYSTEM',
    'ORDER_BOT_BASE_URL',
    'ORDER_BOT_CARRIER',
  ])
    delete process.env[key]
})

/** The order bot traced "in production" and imported as `crashlab import` does, with its module as entry point. */
async function importedRun(
  options: { strip?: 'all' | 'last-output'; legacy?: boolean } = {},
): Promise<{ run: Run; served: number }> {
  const { otlp, served } = await tracedOrderBot(QUESTION, options)
  const [trace] = tracesToRuns(readOtlp(otlp, 'order-bot.json'))
  return { run: { ...trace!.run, entryPoint: ENTRY }, served }
}

function modelSteps(run: Run): LlmStep[] {
  return run.steps.filter((s): s is LlmStep => s.type === 'llm')
}

describe('replaying a run imported from a trace', () => {
  it('the agent runs again offline against the trace: every model call answered from its span, the tool run again', async () => {
    const { run, served } = await importedRun()
    expect(served).toBe(2)
    const replay = await replayRun(run, { cwd: process.cwd() })
    expect(replay.error).toBeUndefined()
    expect(replay.faithful).toBe(true)
    expect(replay.run.output).toBe('Order A17 shipped with DHL.')
    expect(replay.network?.requests ?? []).toEqual([])
    const steps = modelSteps(replay.run)
    expect(steps).toHaveLength(2)
    // Written by the Chat Completions adapter for the live request: a real wire response.
    expect(steps[0]?.provider).toBe('openai-chat')
    expect(steps[0]?.response?.normalized?.toolCalls.map((c) => c.name)).toEqual(['get_order'])
    expect(steps[1]?.request.normalized?.messages.at(-1)?.role).toBe('tool')
    // The agent's own tool ran again: the replay has the tool step the trace recorded, with the live result.
    expect(replay.run.steps.map((s) => s.type)).toEqual(run.steps.map((s) => s.type))
    expect(replay.run.steps[1]).toMatchObject({
      type: 'tool',
      name: 'get_order',
      args: { order_id: 'A17' },
      result: { order_id: 'A17', status: 'shipped', carrier: 'DHL' },
    })
  })

  it('streamed, and on the Responses API although the trace came from Chat Completions: the live adapter writes the answer', async () => {
    const { run } = await importedRun()
    process.env.ORDER_BOT_STREAM = '1'
    const streamed = await replayRun(run, { cwd: process.cwd() })
    expect(streamed.error).toBeUndefined()
    expect(streamed.run.output).toBe('Order A17 shipped with DHL.')
    expect(modelSteps(streamed.run)[0]?.response?.wire.chunks?.length).toBeGreaterThan(1)

    process.env.ORDER_BOT_API = 'responses'
    const responses = await replayRun(run, { cwd: process.cwd() })
    expect(responses.error).toBeUndefined()
    expect(responses.run.output).toBe('Order A17 shipped with DHL.')
    expect(modelSteps(responses.run).map((s) => s.provider)).toEqual(['openai-responses', 'openai-responses'])
  })

  it("a trace of the AI SDK's legacy integration (ai.* keys) replays alike", async () => {
    const { run } = await importedRun({ legacy: true })
    expect(run.metadata.otelImport).toMatchObject({ conventions: ['ai-sdk'] })
    const replay = await replayRun(run, { cwd: process.cwd() })
    expect(replay.error).toBeUndefined()
    expect(replay.run.output).toBe('Order A17 shipped with DHL.')
    expect(replay.run.steps.map((s) => s.type)).toEqual(['llm', 'tool', 'llm'])
  })

  it("the OpenAI Agents SDK's own trace payload replays against the Agents SDK agent", async () => {
    const payloads = await agentsPayloads(QUESTION)
    const [trace] = tracesToRuns(readAgentsTrace(JSON.stringify(payloads), 'ingest.json'))
    const run = {
      ...trace!.run,
      entryPoint: {
        kind: 'module' as const,
        module: './test/fixtures/otel-replay/agents-order-bot.ts',
        export: 'agentsOrderBot',
      },
    }
    const replay = await replayRun(run, { cwd: process.cwd() })
    expect(replay.error).toBeUndefined()
    expect(replay.run.output).toBe('A17 shipped on Monday.')
    expect(replay.run.steps.map((s) => s.type)).toEqual(['llm', 'tool', 'llm'])
    expect(replay.network?.requests ?? []).toEqual([])
  })

  it('an agent whose prompt changed diverges, naming the field the span holds', async () => {
    const { run } = await importedRun()
    process.env.ORDER_BOT_SYSTEM = 'Answer questions about orders. Never look orders up.'
    const replay = await replayRun(run, { cwd: process.cwd() })
    expect(replay.faithful).toBe(false)
    expect(isCrashlabError(replay.error, 'E_DIVERGENCE')).toBe(true)
    expect(String((replay.error as Error).message)).toMatch(/system/)
    expect(String((replay.error as Error).message)).toMatch(/Never look orders up/)
  })

  it("a tool that now returns something else diverges where its result reaches the model, at the trace's step", async () => {
    const { run } = await importedRun()
    process.env.ORDER_BOT_CARRIER = 'UPS'
    const replay = await replayRun(run, { cwd: process.cwd() })
    expect(isCrashlabError(replay.error, 'E_DIVERGENCE')).toBe(true)
    const message = String((replay.error as Error).message)
    expect(message).toMatch(/diverged at step 2: /)
    expect(message).toMatch(/tool_result.*DHL.*→.*UPS/)
    expect(message).toContain('import a trace of the agent as it is now')
  })

  it('a trace without message content: the replay fails saying which step the trace did not capture', async () => {
    const { run } = await importedRun({ strip: 'all' })
    expect(run.completeness).toBe('partial')
    expect(run.input).toBeNull()
    const replay = await replayRun(run, { cwd: process.cwd() })
    expect(isCrashlabError(replay.error, 'E_REPLAY_INCOMPLETE')).toBe(true)
    expect(String((replay.error as Error).message)).toMatch(
      /step 0 of the imported run, whose trace did not capture its messages/,
    )
  })

  it('a trace whose last answer was not captured: the calls before it replay, the replay stops there', async () => {
    const { run } = await importedRun({ strip: 'last-output' })
    expect(run.completeness).toBe('partial')
    const replay = await replayRun(run, { cwd: process.cwd() })
    expect(isCrashlabError(replay.error, 'E_REPLAY_INCOMPLETE')).toBe(true)
    expect(String((replay.error as Error).message)).toMatch(
      /step 2 of the imported run, whose trace did not capture its answer/,
    )
    expect(modelSteps(replay.run)).toHaveLength(1)
  })
})
