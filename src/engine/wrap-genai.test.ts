import { GoogleGenAI } from '@google/genai'
import { afterEach, describe, expect, it } from 'vitest'
import type { LlmStep } from '../case/schema/step.ts'
import { startScriptedProvider } from '../testing/start-scripted-provider.ts'
import type { ScriptedProvider } from '../testing/types.ts'
import { recordRun, replayRun } from './internal/test-record-replay.ts'
import { wrap } from './wrap.ts'

let provider: ScriptedProvider | undefined
afterEach(async () => {
  await provider?.close()
  provider = undefined
})

const KEY = 'AIzaSyTestKeyNotASecret0123456789abcd'

function client(p: ScriptedProvider): GoogleGenAI {
  return wrap(new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: p.url } }))
}

describe('wrap(new GoogleGenAI()) records and replays', () => {
  it('returns the same client, and wrapping twice records once', async () => {
    provider = await startScriptedProvider({ turns: [{ text: 'once' }] })
    const genai = client(provider)
    expect(wrap(genai)).toBe(genai)
    const rec = await recordRun(
      async () => (await genai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi' })).text,
    )
    expect(rec.output).toBe('once')
    expect(rec.loaded.steps).toHaveLength(1)
  })

  it('generateContent: same text at replay, zero requests, and the API key is not stored', async () => {
    provider = await startScriptedProvider({ turns: [{ text: 'A17 shipped on Monday.' }] })
    const genai = client(provider)
    const agent = async () =>
      (await genai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'Where is order A17?' }))
        .text
    const rec = await recordRun(agent)
    expect(rec.output).toBe('A17 shipped on Monday.')
    const step = rec.loaded.steps[0] as LlmStep
    expect(step).toMatchObject({ type: 'llm', provider: 'gemini' })
    expect(step.request.normalized?.model).toBe('gemini-2.5-flash')
    expect(rec.text).not.toContain(KEY)

    const { output, session } = await replayRun(rec.loaded, agent)
    expect(output).toBe(rec.output)
    expect(provider.requests).toHaveLength(1)
    await expect(session.finish({ output: null })).resolves.toMatchObject({ status: 'ok' })
  })

  it('generateContentStream: the same chunks at replay', async () => {
    provider = await startScriptedProvider({
      turns: [{ text: 'Refund of $49 issued for A17.', chunkSize: 6 }],
    })
    const genai = client(provider)
    const agent = async () => {
      const texts: Array<string | undefined> = []
      const stream = await genai.models.generateContentStream({
        model: 'gemini-2.5-flash',
        contents: 'Refund A17',
      })
      for await (const chunk of stream) texts.push(chunk.text)
      return texts
    }
    const rec = await recordRun(agent)
    expect(rec.output.length).toBeGreaterThan(3)
    expect(rec.output.join('')).toBe('Refund of $49 issued for A17.')
    const recorded = (rec.loaded.steps[0] as LlmStep).response
    expect(recorded?.incomplete).toBe(false)

    const { output, session } = await replayRun(rec.loaded, agent)
    expect(output).toEqual(rec.output)
    expect(provider.requests).toHaveLength(1)
    const run = await session.finish({ output: null })
    expect((run.steps[0] as LlmStep).response?.wire.chunks).toEqual(recorded?.wire.chunks)
  })
})
