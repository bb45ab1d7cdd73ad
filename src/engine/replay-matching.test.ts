import OpenAI from 'openai'
import { afterEach, describe, expect, it } from 'vitest'
import type { LlmStep } from '../case/schema/step.ts'
import { isCrashlabError } from '../errors.ts'
import { startScriptedProvider } from '../testing/start-scripted-provider.ts'
import type { ScriptedProvider } from '../testing/types.ts'
import { DivergenceError } from './divergence-error.ts'
import { recordRun, replayRun } from './internal/test-record-replay.ts'
import { Session } from './session.ts'
import { tool } from './tool.ts'
import { wrap } from './wrap.ts'

let provider: ScriptedProvider | undefined
afterEach(async () => {
  await provider?.close()
  provider = undefined
})

function client(p: ScriptedProvider): OpenAI {
  return wrap(new OpenAI({ baseURL: `${p.url}/v1`, apiKey: 'test', maxRetries: 0 }))
}

/** Answers each call with the last user message, after a delay that the message sets. */
async function echoProvider(): Promise<ScriptedProvider> {
  return startScriptedProvider({
    policy: (request) => {
      const last = request.messages.at(-1)?.parts[0]
      const text = last?.type === 'text' ? last.text : '?'
      return { text: `answer to ${text}`, delayMs: text === 'slow' ? 40 : 0 }
    },
  })
}

function ask(openai: OpenAI, content: string): Promise<string | null | undefined> {
  return openai.chat.completions
    .create({ model: 'gpt-5-mini', messages: [{ role: 'user', content }] })
    .then((r) => r.choices[0]?.message.content)
}

describe('replay matching', () => {
  it('a changed prompt is a divergence naming the field, thrown by finish() even when the agent swallowed it', async () => {
    provider = await echoProvider()
    const openai = client(provider)
    const rec = await recordRun(() => ask(openai, 'Where is A17?'))
    const { output, session } = await replayRun(
      rec.loaded,
      async () => {
        try {
          return await ask(openai, 'Where is A18?')
        } catch {
          return 'the agent carried on' // swallowed, as agents do
        }
      },
      { label: 'refund > where is my order', cassettePath: '__cassettes__/refund.cassette.json' },
    )
    expect(output).toBe('the agent carried on')
    expect(provider.requests).toHaveLength(1)
    const error = await session.finish({ output }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(DivergenceError)
    const divergence = error as DivergenceError
    expect(divergence.code).toBe('E_DIVERGENCE')
    expect(divergence.stepIndex).toBe(0)
    expect(divergence.nearestStep).toBe(0)
    expect(divergence.differences.map((d) => d.path)).toEqual(['messages[0].parts[0].text'])
    expect(divergence.message).toContain(
      'message 0 (user), part 0 (text): text: "Where is A17?" → "Where is A18?"',
    )
    expect(divergence.message).toContain(
      'test "refund > where is my order" (cassette __cassettes__/refund.cassette.json)',
    )
    expect(divergence.message).toContain('npx crashlab vitest --record')
  })

  it('a changed tool definition and parameter are named too', async () => {
    provider = await echoProvider()
    const openai = client(provider)
    const call = (temperature: number, description: string) =>
      openai.chat.completions.create({
        model: 'gpt-5-mini',
        temperature,
        messages: [{ role: 'user', content: 'hi' }],
        tools: [
          { type: 'function', function: { name: 'get_order', description, parameters: { type: 'object' } } },
        ],
      })
    const rec = await recordRun(() => call(0, 'Look up an order'))
    const { session } = await replayRun(rec.loaded, () => call(0.5, 'Find an order').catch(() => null))
    const error = (await session.finish({ output: null }).catch((e: unknown) => e)) as DivergenceError
    expect(error.differences.map((d) => d.what).sort()).toEqual([
      'param temperature',
      'tool "get_order": description',
    ])
  })

  it('recorded calls left unused fail the replay with E_REPLAY_UNUSED, unless allowUnused', async () => {
    provider = await echoProvider()
    const openai = client(provider)
    const rec = await recordRun(async () => [await ask(openai, 'one'), await ask(openai, 'two')])
    const strict = await replayRun(rec.loaded, () => ask(openai, 'one'))
    expect(strict.output).toBe('answer to one')
    const error = await strict.session.finish({ output: strict.output }).catch((e: unknown) => e)
    expect(isCrashlabError(error, 'E_REPLAY_UNUSED')).toBe(true)
    expect((error as Error).message).toContain('step 1: openai-chat chat.completions')
    const lenient = await replayRun(rec.loaded, () => ask(openai, 'one'), { allowUnused: true })
    await expect(lenient.session.finish({ output: null })).resolves.toMatchObject({ status: 'ok' })
  })

  it('one call more than recorded is a divergence that says the call was already replayed', async () => {
    provider = await echoProvider()
    const openai = client(provider)
    const rec = await recordRun(() => ask(openai, 'once'))
    const { session } = await replayRun(rec.loaded, async () => [
      await ask(openai, 'once'),
      await ask(openai, 'once').catch(() => null),
    ])
    const error = (await session.finish({ output: null }).catch((e: unknown) => e)) as DivergenceError
    expect(error.code).toBe('E_DIVERGENCE')
    expect(error.stepIndex).toBe(1)
    expect(error.message).toContain('already replayed')
  })

  it('parallel calls each get their own answer, whatever order they arrive and finish in', async () => {
    provider = await echoProvider()
    const openai = client(provider)
    const rec = await recordRun(() => Promise.all([ask(openai, 'slow'), ask(openai, 'fast')]))
    expect(rec.output).toEqual(['answer to slow', 'answer to fast'])
    // Recorded in completion order: the fast one first.
    expect(rec.loaded.steps.map((s) => (s as LlmStep).response?.normalized?.parts)).toEqual([
      [{ type: 'text', text: 'answer to fast' }],
      [{ type: 'text', text: 'answer to slow' }],
    ])
    const { output, session } = await replayRun(rec.loaded, async () => {
      const [fast, slow] = await Promise.all([ask(openai, 'fast'), ask(openai, 'slow')])
      return [slow, fast]
    })
    expect(output).toEqual(rec.output)
    expect(provider.requests).toHaveLength(2)
    await expect(session.finish({ output: null })).resolves.toMatchObject({ status: 'ok' })
  })

  it('a secret in the prompt and in a tool result never reaches the cassette, and the replay still matches', async () => {
    const secret = 'sk-proj-Zx81TestSecretValue0123456789'
    provider = await startScriptedProvider({
      turns: [{ toolCalls: [{ name: 'get_config', args: {} }] }, { text: 'configured' }],
    })
    const openai = client(provider)
    let runs = 0
    const getConfig = tool(
      async () => {
        runs++
        return { note: `deploy with ${secret}` }
      },
      { name: 'get_config', sideEffects: false },
    )
    const agent = async () => {
      const messages: OpenAI.ChatCompletionMessageParam[] = [
        { role: 'user', content: `My key is ${secret}, set it up` },
      ]
      const first = await openai.chat.completions.create({ model: 'gpt-5-mini', messages })
      const message = first.choices[0]!.message
      const call = message.tool_calls?.[0]
      if (!call) return null
      const result = await getConfig()
      messages.push(message, { role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) })
      return (await openai.chat.completions.create({ model: 'gpt-5-mini', messages })).choices[0]?.message
        .content
    }
    const rec = await recordRun(agent)
    expect(rec.output).toBe('configured')
    expect(JSON.stringify(provider.requests[1]?.body)).toContain(secret) // it really was sent
    expect(rec.text).not.toContain(secret)
    expect(rec.text).toContain('[REDACTED:openai-key]')

    const { output, session } = await replayRun(rec.loaded, agent)
    expect(output).toBe('configured')
    expect(runs).toBe(1)
    expect(provider.requests).toHaveLength(2)
    await expect(session.finish({ output: null })).resolves.toMatchObject({ status: 'ok' })
  })

  it('finish({ error }): a replay failure is what the run reports, with the agent’s error as its cause', async () => {
    provider = await echoProvider()
    const openai = client(provider)
    const rec = await recordRun(() => ask(openai, 'a'))
    const warnings: string[] = []
    const { session } = await replayRun(rec.loaded, () => ask(openai, 'b').catch(() => null), {
      onWarning: (m) => warnings.push(m),
    })
    const agentError = new RangeError('the agent broke')
    const thrown = await session.finish({ error: agentError }).catch((e: unknown) => e)
    expect(thrown).toMatchObject({ code: 'E_DIVERGENCE', cause: agentError })
    expect(session.run.status).toBe('error')
    expect(session.run.error).toMatchObject({ name: 'RangeError', message: 'the agent broke' })
    expect(session.errors.map((e) => e.code)).toEqual(['E_DIVERGENCE', 'E_REPLAY_UNUSED'])
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain('never replayed')
  })

  it('finish({ error }) without a replay failure leaves the agent’s error to the caller', async () => {
    provider = await echoProvider()
    const openai = client(provider)
    const rec = await recordRun(() => ask(openai, 'a'))
    const { session } = await replayRun(rec.loaded, () => ask(openai, 'a'))
    const run = await session.finish({ error: new RangeError('the agent broke after its calls') })
    expect(run.status).toBe('error')
    expect(run.error).toMatchObject({ name: 'RangeError' })
  })

  it('a replay Session needs a recorded run', () => {
    expect(() => new Session({ mode: 'replay', cassettePath: 'x.cassette.json' })).toThrow(
      /E_REPLAY_MISSING|no recorded run/,
    )
    try {
      new Session({ mode: 'replay' })
    } catch (e) {
      expect(isCrashlabError(e, 'E_REPLAY_MISSING')).toBe(true)
    }
  })
})
