import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import OpenAI from 'openai'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { loadCassette } from '../case/cassette-load.ts'
import { writeCassette } from '../case/cassette-write.ts'
import type { Run } from '../case/schema/run.ts'
import { CrashlabError } from '../errors.ts'
import { startScriptedProvider } from '../testing/start-scripted-provider.ts'
import type { ScriptedProvider } from '../testing/types.ts'
import { runInSession } from './context.ts'
import { Session, type SessionOptions } from './session.ts'
import { tool } from './tool.ts'
import type { SessionHooks } from './types.ts'
import { wrap } from './wrap.ts'

const dir = mkdtempSync(join(tmpdir(), 'crashlab-halt-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let provider: ScriptedProvider | undefined
afterEach(async () => {
  await provider?.close()
  provider = undefined
})

const TOOLS = [
  {
    type: 'function' as const,
    function: { name: 'get_order', parameters: { type: 'object', properties: { id: { type: 'string' } } } },
  },
]

/** A runaway agent: asks the model, runs the tool it asks for, and goes round again, up to 6 turns. */
async function setup() {
  provider = await startScriptedProvider({
    policy: (request) => ({
      toolCalls: [{ name: 'get_order', args: { id: `A${request.messages.length}` } }],
    }),
  })
  const openai = wrap(new OpenAI({ baseURL: `${provider.url}/v1`, apiKey: 'test', maxRetries: 0 }))
  const toolRuns: string[] = []
  const getOrder = tool(
    async (args: { id: string }) => {
      toolRuns.push(args.id)
      return { id: args.id, status: 'shipped' }
    },
    { name: 'get_order', sideEffects: false },
  )
  const agent = async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Where is A17?' }]
    for (let turn = 0; turn < 6; turn++) {
      const res = await openai.chat.completions.create({ model: 'gpt-5-mini', messages, tools: TOOLS })
      const message = res.choices[0]!.message
      messages.push(message)
      for (const call of message.tool_calls ?? []) {
        if (call.type !== 'function') continue
        const result = await getOrder(JSON.parse(call.function.arguments))
        messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) })
      }
    }
    return 'done'
  }
  return { openai, agent, toolRuns }
}

/** The breaker someone builds on onStep: opens once the run has `max` steps. */
function breaker(max: number): SessionHooks {
  return {
    onStep: (step, session) => {
      if (step.index + 1 >= max)
        session.halt(new CrashlabError('E_CIRCUIT_OPEN', `the run reached ${max} steps`))
    },
  }
}

async function runAgent<T>(options: SessionOptions, agent: () => Promise<T>) {
  const session = new Session(options)
  let error: unknown
  try {
    await runInSession(session, agent)
  } catch (e) {
    error = e
  }
  const thrown = await session.finish(error === undefined ? { output: 'done' } : { error }).then(
    () => undefined,
    (e: unknown) => e,
  )
  return { session, error, thrown }
}

function roundTrip(run: Run): Run {
  const path = join(dir, `${run.id}.cassette.json`)
  writeCassette(path, run, { onWarning: () => {} })
  return loadCassette(path).run
}

describe('Session.halt', () => {
  it('stops a recording at the step the breaker opened on, and its replay at the same step', async () => {
    const { agent, toolRuns } = await setup()
    const rec = await runAgent({ mode: 'record', name: 'halt', hooks: breaker(3) }, agent)
    const halt = rec.session.halted
    expect(halt).toBeInstanceOf(CrashlabError)
    expect(halt?.code).toBe('E_CIRCUIT_OPEN')
    // llm, tool, llm: then the tool the model asked for throws the halt itself, without running.
    expect(rec.session.run.steps.map((s) => s.type)).toEqual(['llm', 'tool', 'llm'])
    expect(toolRuns).toEqual(['A1'])
    expect(rec.error).toBe(halt)
    expect(provider!.requests).toHaveLength(2)
    // finish() throws the halt; the agent's error is the halt itself, so it is not its own cause.
    expect(rec.thrown).toBe(halt)
    expect((rec.thrown as Error).cause).toBeUndefined()
    expect(rec.session.run.status).toBe('error')

    const recorded = roundTrip(rec.session.run)
    const replay = await runAgent({ mode: 'replay', recorded, label: 'halt', hooks: breaker(3) }, agent)
    expect(replay.session.run.steps.map((s) => s.type)).toEqual(['llm', 'tool', 'llm'])
    expect(replay.thrown).toBe(replay.session.halted)
    expect((replay.thrown as CrashlabError).code).toBe('E_CIRCUIT_OPEN')
    expect(provider!.requests).toHaveLength(2)
    expect(toolRuns).toEqual(['A1'])
    // Nothing else is reported: no divergence, no unused steps.
    expect(replay.session.errors.map((e) => e.code)).toEqual(['E_CIRCUIT_OPEN'])
  })

  it('a model call after the halt fails as a network error carrying the halt, and reaches nothing', async () => {
    const { openai } = await setup()
    const agent = async () => {
      await openai.chat.completions.create({
        model: 'gpt-5-mini',
        messages: [{ role: 'user', content: 'a' }],
      })
      // The agent goes on after the breaker opened, catching what it gets.
      return openai.chat.completions
        .create({ model: 'gpt-5-mini', messages: [{ role: 'user', content: 'b' }] })
        .then(
          () => 'answered',
          (e: unknown) => e,
        )
    }
    for (const mode of ['record', 'replay'] as const) {
      const options: SessionOptions =
        mode === 'record'
          ? { mode, name: 'halt', hooks: breaker(1) }
          : { mode, recorded: (await recorded()).run, hooks: breaker(1) }
      const before = provider!.requests.length
      const session = new Session(options)
      const caught = await runInSession(session, agent)
      // Refused with an HTTP 400 that no SDK retries, naming the halt's code.
      expect(caught).toBeInstanceOf(OpenAI.BadRequestError)
      expect((caught as InstanceType<typeof OpenAI.BadRequestError>).headers.get('x-crashlab-error')).toBe(
        'E_CIRCUIT_OPEN',
      )
      expect(session.run.steps).toHaveLength(1)
      expect(provider!.requests.length - before).toBe(mode === 'record' ? 1 : 0)
      // The agent swallowed it: finish() throws it all the same.
      await expect(session.finish({ output: caught })).rejects.toBe(session.halted)
    }

    async function recorded() {
      const session = new Session({ mode: 'record', name: 'halt-source' })
      await runInSession(session, () =>
        openai.chat.completions.create({ model: 'gpt-5-mini', messages: [{ role: 'user', content: 'a' }] }),
      )
      return { run: await session.finish({ output: null }) }
    }
  })

  it('an http call after the halt fails the same way', async () => {
    const { openai } = await setup()
    const session = new Session({ mode: 'record', name: 'halt' })
    const halt = new CrashlabError('E_CIRCUIT_OPEN', 'stop')
    session.halt(halt)
    const caught = await runInSession(session, () =>
      openai.models.list().then(
        () => 'listed',
        (e: unknown) => e,
      ),
    )
    expect(caught).toBeInstanceOf(OpenAI.BadRequestError)
    expect((caught as InstanceType<typeof OpenAI.BadRequestError>).status).toBe(400)
    expect(provider!.requests).toHaveLength(0)
    expect(session.run.steps).toEqual([])
    await expect(session.finish({ output: null })).rejects.toBe(halt)
  })

  it('tool() throws the halt itself without running the tool, sync or async, in record and replay', async () => {
    let runs = 0
    const double = tool(
      (n: number) => {
        runs++
        return n * 2
      },
      { name: 'double', sideEffects: false },
    )
    const refund = tool(
      async (amount: number) => {
        runs++
        return { refunded: amount }
      },
      { name: 'refund', sideEffects: true },
    )
    const recording = new Session({ mode: 'record', name: 'halt' })
    expect(runInSession(recording, () => double(2))).toBe(4)
    recording.halt(new CrashlabError('E_CIRCUIT_OPEN', 'stop'))
    const run = recording.run
    expect(() => runInSession(recording, () => double(3))).toThrow(recording.halted)
    await expect(runInSession(recording, () => refund(5))).rejects.toBe(recording.halted)
    expect(runs).toBe(1)
    expect(run.steps).toHaveLength(1)

    const replay = new Session({ mode: 'replay', recorded: roundTrip(run) })
    const halt = new CrashlabError('E_CIRCUIT_OPEN', 'stop at once')
    replay.halt(halt)
    expect(() => runInSession(replay, () => double(2))).toThrow(halt)
    expect(runs).toBe(1)
    expect(replay.run.steps).toEqual([])
    // Halted before the recorded step was replayed: not an E_REPLAY_UNUSED.
    await expect(replay.finish({ output: null })).rejects.toBe(halt)
    expect(replay.errors).toEqual([halt])
  })

  it('finish() throws the halt ahead of earlier errors, with the agent’s error as its cause', async () => {
    const capture = new CrashlabError('E_CAPTURE', 'a hook threw')
    const halt = new CrashlabError('E_CIRCUIT_OPEN', 'stop')
    const warnings: string[] = []
    const ok = new Session({ mode: 'record', name: 'halt', onWarning: (m) => warnings.push(m) })
    ok.fail(capture)
    ok.halt(halt)
    ok.halt(new CrashlabError('E_CIRCUIT_OPEN', 'a second breaker'))
    expect(ok.halted).toBe(halt)
    await expect(ok.finish({ output: 'partial answer' })).rejects.toBe(halt)

    const agentError = new Error('the agent gave up')
    const failed = new Session({ mode: 'record', name: 'halt', onWarning: (m) => warnings.push(m) })
    failed.fail(capture)
    failed.halt(halt)
    const thrown = await failed.finish({ error: agentError }).catch((e: unknown) => e)
    expect(thrown).toBe(halt)
    expect((thrown as Error).cause).toBe(agentError)
    expect(warnings.some((w) => w.includes('a hook threw'))).toBe(true)

    expect(new Session({ mode: 'record' }).halted).toBeUndefined()
  })
})
