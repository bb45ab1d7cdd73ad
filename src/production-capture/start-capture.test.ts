import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import OpenAI from 'openai'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { wrap } from '../engine/wrap.ts'
import { openStore } from '../store/open-store.ts'
import { type ScriptedProvider, startScriptedProvider } from '../testing/index.ts'
import { installInterceptor } from './install-interceptor.ts'
import { record } from './record.ts'
import { startCapture } from './start-capture.ts'

const SECRET = 'sk-proj-CaptureTestSecret0123456789abcd'
let provider: ScriptedProvider
let openai: OpenAI
const dirs: string[] = []

beforeAll(async () => {
  provider = await startScriptedProvider({ policy: (_req, ctx) => ({ text: `answer ${ctx.index}` }) })
  openai = wrap(new OpenAI({ baseURL: `${provider.url}/v1`, apiKey: SECRET, maxRetries: 0 }))
})
afterAll(async () => {
  await provider.close()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})
afterEach(() => {
  vi.restoreAllMocks()
})

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'crashlab-capture-'))
  dirs.push(dir)
  return dir
}

async function ask(client: OpenAI, content: string): Promise<string> {
  const c = await client.chat.completions.create({
    model: 'gpt-5-mini',
    messages: [{ role: 'user', content }],
  })
  return c.choices[0]?.message.content ?? ''
}

describe('startCapture', () => {
  it('journals each step as it happens and stores the run at close', async () => {
    const dir = tempDir()
    const capture = await startCapture({
      name: 'support-bot',
      input: { ticket: 7 },
      store: dir,
      config: false,
      tags: ['prod'],
    })
    const first = await capture.run(() => ask(openai, 'hello'))
    expect(first).toMatch(/^answer \d+$/)
    const journal = join(dir, 'journal', `${capture.id}.jsonl`)
    expect(readFileSync(journal, 'utf8').trim().split('\n')).toHaveLength(2)
    await capture.run(() => ask(openai, `again, key ${SECRET}`))
    const stored = await capture.close({ output: 'done' })
    expect(stored).toMatchObject({
      id: capture.id,
      name: 'support-bot',
      status: 'ok',
      llmCalls: 2,
      tags: ['prod'],
    })
    expect(existsSync(journal)).toBe(false)
    const store = await openStore({ dir, config: false })
    try {
      const run = store.load(capture.id)
      expect(run.output).toBe('done')
      expect(run.input).toEqual({ ticket: 7 })
      expect(readFileSync(store.cassettePath(capture.id), 'utf8')).not.toContain(SECRET)
    } finally {
      store.close()
    }
    // closing twice stores once
    expect(await capture.close({ output: 'other' })).toBe(stored)
  })

  it("rethrows the app's error unchanged and stores the run as an error", async () => {
    const dir = tempDir()
    const capture = await startCapture({ name: 'support-bot', store: dir, config: false })
    const boom = new Error('the app broke')
    const caught = await capture
      .run(async () => {
        await ask(openai, 'hi')
        throw boom
      })
      .catch((e: unknown) => e)
    expect(caught).toBe(boom)
    const stored = await capture.close({ error: boom })
    expect(stored).toMatchObject({ status: 'error', steps: 1 })
  })

  it('with store: false stores nothing, and a store that cannot open only warns', async () => {
    const off = await startCapture({ name: 'quiet', store: false, config: false })
    expect(await off.run(() => ask(openai, 'hi'))).toMatch(/^answer/)
    expect(await off.close({ output: 1 })).toBeUndefined()

    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {})
    const file = join(tempDir(), 'a-file')
    writeFileSync(file, 'not a folder')
    const broken = await startCapture({ name: 'broken-store', store: file, config: false })
    expect(await broken.run(() => ask(openai, 'hi'))).toMatch(/^answer/)
    expect(await broken.close({ output: 1 })).toBeUndefined()
    expect(String(warn.mock.calls[0]?.[0])).toMatch(/could not open the run store.*a-file/)
  })

  it('record() stores into the store it is given, under Vitest too', async () => {
    const dir = tempDir()
    const { stored, run } = await record('status', (q: string) => ask(openai, q), {
      input: 'hi',
      store: dir,
      config: false,
    })
    expect(stored?.id).toBe(run.id)
    expect(readdirSync(join(dir, 'runs'))).toContain(`${run.id}.cassette.json`)
    const none = await record('status', (q: string) => ask(openai, q), { input: 'hi', config: false })
    expect(none.stored).toBeUndefined()
  })
})

describe('installInterceptor', () => {
  it('captures an unwrapped client inside a capture, and leaves calls outside one untouched', async () => {
    // A provider of its own: keep-alive sockets opened before the interceptor (by the tests above) would
    // carry requests past it, which is why it must be installed at start-up.
    const own = await startScriptedProvider({ policy: () => ({ text: 'answer' }) })
    const interceptor = installInterceptor({ hosts: [own.url] })
    try {
      // created after the interceptor, and never wrapped
      const plain = new OpenAI({ baseURL: `${own.url}/v1`, apiKey: SECRET, maxRetries: 0 })
      const before = own.requests.length
      expect(await ask(plain, 'outside')).toMatch(/^answer/)
      expect(own.requests.length).toBe(before + 1)

      const dir = tempDir()
      const capture = await startCapture({ name: 'framework-agent', store: dir, config: false })
      const answer = await capture.run(() => ask(plain, 'inside'))
      const stored = await capture.close({ output: answer })
      expect(own.requests.length).toBe(before + 2)
      expect(stored).toMatchObject({ llmCalls: 1, status: 'ok' })
    } finally {
      await interceptor.close()
      await own.close()
    }
  })
})
