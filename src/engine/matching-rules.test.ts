import OpenAI from 'openai'
import { afterEach, describe, expect, it } from 'vitest'
import { isCrashlabError } from '../errors.ts'
import { startScriptedProvider } from '../testing/start-scripted-provider.ts'
import type { ScriptedProvider } from '../testing/types.ts'
import { DivergenceError } from './divergence-error.ts'
import { recordRun, replayRun } from './internal/test-record-replay.ts'
import type { MatchingOptions, RequestNormalizer } from './types.ts'
import { wrap } from './wrap.ts'

let provider: ScriptedProvider | undefined
afterEach(async () => {
  await provider?.close()
  provider = undefined
})

async function setup(): Promise<OpenAI> {
  provider = await startScriptedProvider({ policy: () => ({ text: 'ok' }) })
  return wrap(new OpenAI({ baseURL: `${provider.url}/v1`, apiKey: 'test', maxRetries: 0 }))
}

function ask(openai: OpenAI, system: string, trace: string): Promise<unknown> {
  return openai.chat.completions.create({
    model: 'gpt-5-mini',
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: 'Where is A17?' },
    ],
    x_trace_id: trace,
  } as OpenAI.ChatCompletionCreateParamsNonStreaming)
}

const stripDate: RequestNormalizer = (req) => ({
  ...req,
  messages: req.messages.map((m) => ({
    ...m,
    parts: m.parts.map((p) =>
      p.type === 'text' ? { ...p, text: p.text.replace(/\d{4}-\d{2}-\d{2}/g, '<date>') } : p,
    ),
  })),
  system: req.system.map((p) =>
    p.type === 'text' ? { ...p, text: p.text.replace(/\d{4}-\d{2}-\d{2}/g, '<date>') } : p,
  ),
})

async function replayWith(matching: MatchingOptions | undefined, recordMatching?: MatchingOptions) {
  const openai = await setup()
  const rec = await recordRun(() => ask(openai, 'Today is 2026-11-28.', 'trace-1'), {
    matching: recordMatching,
  })
  const { session } = await replayRun(
    rec.loaded,
    () => ask(openai, 'Today is 2026-11-29.', 'trace-2').catch(() => null),
    {
      matching,
    },
  )
  return {
    session,
    finished: session.finish({ output: null }).then(
      () => null,
      (e: unknown) => e,
    ),
  }
}

describe('matching rules (ignoreParams, normalize)', () => {
  it('without rules, a changed date and trace id diverge', async () => {
    const { finished } = await replayWith(undefined)
    const error = await finished
    expect(error).toBeInstanceOf(DivergenceError)
    expect(String((error as Error).message)).toContain('x_trace_id')
  })

  it('an ignored param and a date normalizer make the replay match, with rules added only after the recording', async () => {
    const { session, finished } = await replayWith({ ignoreParams: ['x_trace_id'], normalize: [stripDate] })
    expect(await finished).toBeNull()
    expect(session.run.steps).toHaveLength(1)
    expect(provider?.requests).toHaveLength(1)
  })

  it('rules at record and replay alike match too', async () => {
    const rules = { ignoreParams: ['x_trace_id'], normalize: [stripDate] }
    const { finished } = await replayWith(rules, rules)
    expect(await finished).toBeNull()
  })

  it('the date normalizer alone still leaves the trace id a divergence', async () => {
    const { finished } = await replayWith({ normalize: [stripDate] })
    const error = (await finished) as DivergenceError
    expect(error).toBeInstanceOf(DivergenceError)
    expect(error.message).toContain('x_trace_id')
    expect(error.message).not.toContain('2026-11-29')
  })

  it('a normalizer that throws is a capture error thrown by finish()', async () => {
    const { finished } = await replayWith({
      ignoreParams: ['x_trace_id'],
      normalize: [
        function broken() {
          throw new Error('boom')
        },
      ],
    })
    const error = await finished
    expect(isCrashlabError(error)).toBe(true)
    expect((error as Error).message).toContain('the matching normalizer broken threw: boom')
  })
})
