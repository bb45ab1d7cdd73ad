import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import OpenAI from 'openai'
import { fetch as undiciFetch } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Run } from '../case/schema/run.ts'
import type { LlmStep } from '../case/schema/step.ts'
import { recordRun, replayRun } from '../engine/internal/test-record-replay.ts'
import { wrap } from '../engine/wrap.ts'
import { startTestProvider, type TestProvider } from '../interceptor/internal/test-provider.ts'
import { startInterceptor } from '../interceptor/start-interceptor.ts'
import type { Interceptor } from '../interceptor/types.ts'
import { ALL_MODEL_FAULTS, faultLabel, type ModelFault } from './faults.ts'
import { faultInjection } from './inject.ts'

// Every model fault kind on every wire API, injected by the engine in a replay, through each path a
// model call takes: the global fetch (the replay fast path), a client on the undici package (MSW's
// interception), and wrap(client). No SDK retries here (maxRetries 0): the agent sees the fault itself.
// Recorded against the scripted provider; during the variants it receives nothing.
let p: TestProvider
let interceptor: Interceptor
beforeAll(async () => {
  p = await startTestProvider()
  interceptor = startInterceptor({ hosts: [p.provider.url] })
})
afterAll(async () => {
  await interceptor.close()
  await p.provider.close()
})

const ANSWER = 'Order A17 shipped on Monday and arrives on Thursday.'
type Path = 'fast path' | 'msw' | 'wrap'
type Api = 'openai-chat' | 'openai-responses' | 'anthropic-messages' | 'gemini'

/** What the agent saw: the text and finish reason it read, or the error it got. */
interface Seen {
  text: string
  finish: string | null
  error?: unknown
}

function client(api: Api, path: Path) {
  const fetch = path === 'msw' ? (undiciFetch as unknown as typeof globalThis.fetch) : undefined
  const made =
    api === 'openai-chat' || api === 'openai-responses'
      ? new OpenAI({ apiKey: 'sk-test', baseURL: `${p.provider.url}/v1`, maxRetries: 0, fetch })
      : api === 'anthropic-messages'
        ? new Anthropic({ apiKey: 'sk-ant-test', baseURL: p.provider.url, maxRetries: 0, fetch })
        : new GoogleGenAI({
            apiKey: 'gm-test',
            httpOptions: { baseUrl: p.provider.url, ...(fetch && { fetch }) },
          })
  return path === 'wrap' ? wrap(made) : made
}

function agent(api: Api, path: Path, stream: boolean): () => Promise<Seen> {
  const c = client(api, path)
  return async () => {
    const seen: Seen = { text: '', finish: null }
    try {
      if (api === 'openai-chat') {
        const openai = c as OpenAI
        const messages = [{ role: 'user' as const, content: 'Where is A17?' }]
        if (!stream) {
          const choice = (await openai.chat.completions.create({ model: 'gpt-5-mini', messages })).choices[0]
          seen.text = choice?.message.content ?? choice?.message.refusal ?? ''
          seen.finish = choice?.finish_reason ?? null
        } else
          for await (const chunk of await openai.chat.completions.create({
            model: 'gpt-5-mini',
            messages,
            stream: true,
          })) {
            const choice = chunk.choices[0]
            seen.text += choice?.delta.content ?? choice?.delta.refusal ?? ''
            seen.finish = choice?.finish_reason ?? seen.finish
          }
      } else if (api === 'openai-responses') {
        const openai = c as OpenAI
        const response = stream
          ? await openai.responses.stream({ model: 'gpt-5-mini', input: 'Where is A17?' }).finalResponse()
          : await openai.responses.create({ model: 'gpt-5-mini', input: 'Where is A17?' })
        for (const item of response.output)
          if (item.type === 'message')
            for (const part of item.content)
              seen.text += part.type === 'output_text' ? part.text : part.refusal
        seen.finish = response.incomplete_details?.reason ?? response.status ?? null
      } else if (api === 'anthropic-messages') {
        const anthropic = c as Anthropic
        const params = {
          model: 'claude-test',
          max_tokens: 64,
          messages: [{ role: 'user' as const, content: 'Where is A17?' }],
        }
        const message = stream
          ? await anthropic.messages.stream(params).finalMessage()
          : await anthropic.messages.create(params)
        seen.text = message.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
        seen.finish = message.stop_reason
      } else {
        const genai = c as GoogleGenAI
        const params = { model: 'gemini-2.5-flash', contents: 'Where is A17?' }
        const chunks = stream
          ? await genai.models.generateContentStream(params)
          : [await genai.models.generateContent(params)]
        for await (const chunk of chunks) {
          seen.text += chunk.text ?? ''
          seen.finish = chunk.candidates?.[0]?.finishReason ?? seen.finish
        }
      }
    } catch (error) {
      seen.error = error
    }
    return seen
  }
}

/** What each fault must look like to the agent: an error (with its status when it has one), or an answer that is not the recorded one. */
function expectFault(fault: ModelFault, seen: Seen, step: LlmStep, stream: boolean): void {
  const status = (seen.error as { status?: number; code?: number } | undefined)?.status
  switch (fault.kind) {
    case 'rate_limit':
    case 'server_error':
    case 'gateway_html': {
      const expected = fault.kind === 'rate_limit' ? 429 : fault.kind === 'server_error' ? 500 : 502
      expect(step.response?.wire.status).toBe(expected)
      expect(seen.error).toBeDefined()
      expect(status ?? (seen.error as { code?: number }).code).toBe(expected)
      return
    }
    case 'timeout':
    case 'connection_reset':
      expect(seen.error).toBeDefined()
      expect(step.error).not.toBeNull()
      return
    case 'malformed_json':
      // A 200 whose body (or first event) is not JSON: the SDK cannot read it; the step keeps it.
      expect(seen.error).toBeDefined()
      expect(step.response?.wire.status).toBe(200)
      return
    case 'stream_cut':
      expect(seen.error).toBeDefined()
      expect(step.response?.incomplete ?? step.error !== null).toBe(true)
      if (stream) expect(ANSWER.startsWith(seen.text)).toBe(true)
      return
    case 'refusal':
    case 'content_filter':
    case 'length_cutoff': {
      expect(seen.error).toBeUndefined()
      expect(seen.text).not.toBe(ANSWER)
      const normalized = step.response?.normalized?.finishReason
      if (fault.kind === 'content_filter') expect(normalized).toBe('content_filter')
      if (fault.kind === 'length_cutoff') expect(normalized).toBe('length')
      return
    }
  }
}

const APIS: Api[] = ['openai-chat', 'openai-responses', 'anthropic-messages', 'gemini']
const PATHS: Path[] = ['fast path', 'msw', 'wrap']

describe.each(APIS)('%s', (api) => {
  const recordings = new Map<string, Run>()
  async function recorded(path: Path, stream: boolean): Promise<Run> {
    const key = `${path} ${stream}`
    const known = recordings.get(key)
    if (known) return known
    p.script([{ text: ANSWER, chunkSize: 8 }])
    const rec = await recordRun(agent(api, path, stream))
    expect(rec.output).toMatchObject({ text: ANSWER })
    recordings.set(key, rec.loaded)
    return rec.loaded
  }

  describe.each(PATHS)('through %s', (path) => {
    it.each(ALL_MODEL_FAULTS.flatMap((fault) => [false, true].map((stream) => ({ fault, stream }))))(
      '$fault.kind, streamed: $stream',
      async ({ fault, stream }) => {
        const run = await recorded(path, stream)
        p.script([])
        const { output, session } = await replayRun(run, agent(api, path, stream), {
          inject: faultInjection(fault, 0),
          allowUnused: true,
        })
        const variant = await session.finish({ output: null }).catch(() => session.run)
        expect(session.injectedAt, faultLabel(fault)).toBe(0)
        // The fault is the agent's to cope with: crashlab itself raised nothing while recording it.
        expect(session.errors.filter((e) => e.code === 'E_CAPTURE')).toEqual([])
        expect(p.received()).toBe(0)
        expectFault(fault, output, variant.steps[0] as LlmStep, stream)
      },
    )
  })
})
