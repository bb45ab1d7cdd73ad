import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import OpenAI from 'openai'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { loadCassette } from '../case/cassette-load.ts'
import { writeCassette } from '../case/cassette-write.ts'
import type { Run } from '../case/schema/run.ts'
import { isCrashlabError } from '../errors.ts'
import { startScriptedProvider } from '../testing/start-scripted-provider.ts'
import type { ScriptedProvider } from '../testing/types.ts'
import { runInSession } from './context.ts'
import { DivergenceError } from './divergence-error.ts'
import { Session } from './session.ts'
import { tool } from './tool.ts'
import { wrap } from './wrap.ts'

// A five-call agent against the scripted provider, through the real OpenAI SDK: recorded once, then run
// again with `onDivergence: 'record'` and a changed prompt late in the run.
let provider: ScriptedProvider
let openai: OpenAI
let dir: string
let refunds: number[]

beforeAll(async () => {
  // The answer depends on the request: a changed prompt gets a changed answer.
  provider = await startScriptedProvider({
    policy: (request) => {
      const last = request.messages.at(-1)
      const part = last?.parts[0]
      return { text: `ok: ${part?.type === 'text' ? part.text : '?'}` }
    },
  })
  openai = wrap(new OpenAI({ baseURL: `${provider.url}/v1`, apiKey: 'sk-diverged-test', maxRetries: 0 }))
  dir = mkdtempSync(join(tmpdir(), 'crashlab-diverged-'))
})
afterAll(async () => {
  await provider.close()
  rmSync(dir, { recursive: true, force: true })
})
beforeEach(() => {
  refunds = []
})

const issueRefund = tool(
  async (amount: number) => {
    refunds.push(amount)
    return { refund: `rf_${refunds.length}`, amount }
  },
  { name: 'issue_refund', sideEffects: true },
)

const PROMPTS = ['Where is A17?', 'Refund it', 'Is it done?', 'Thanks. Anything else?', 'Bye']

/** Five model calls; the refund (a side effect) after the second. Steps: llm, llm, tool, llm, llm, llm. */
async function agent(prompts: readonly string[], amount = 49): Promise<string> {
  const messages: OpenAI.ChatCompletionMessageParam[] = []
  let answer = ''
  for (const [i, prompt] of prompts.entries()) {
    messages.push({ role: 'user', content: prompt })
    const completion = await openai.chat.completions.create({ model: 'gpt-5-mini', messages })
    answer = completion.choices[0]?.message.content ?? ''
    messages.push({ role: 'assistant', content: answer })
    if (i === 1) await issueRefund(amount)
  }
  return answer
}

/** The text of each step of a cassette file, as the file holds it (elements of `run.steps`, indent 6). */
function stepTexts(text: string): string[] {
  const start = text.indexOf('\n    "steps": [\n')
  const end = text.indexOf('\n    ],\n', start)
  expect(start).toBeGreaterThan(0)
  return text
    .slice(start + '\n    "steps": [\n'.length, end)
    .split(/(?<=\n {6}\}),\n(?= {6}\{\n)/)
    .map((s) => s.replace(/,$/, ''))
}

async function recordOnce(path: string): Promise<{ run: Run; text: string }> {
  const session = new Session({ mode: 'record', name: 'diverged-test', cassettePath: path })
  const output = await runInSession(session, () => agent(PROMPTS))
  writeCassette(path, await session.finish({ output }), { onWarning: () => {} })
  return { run: loadCassette(path).run, text: readFileSync(path, 'utf8') }
}

function divergedSession(recorded: Run, path: string): Session {
  return new Session({
    mode: 'replay',
    onDivergence: 'record',
    recorded,
    cassettePath: path,
    label: 'diverged',
  })
}

describe("a replay with onDivergence: 'record' (record mode diverged)", () => {
  it('keeps the prefix byte-identical: replays up to the changed request, records live from there', async () => {
    const path = join(dir, 'late-change.cassette.json')
    const recorded = await recordOnce(path)
    expect(recorded.run.steps.map((s) => s.type)).toEqual(['llm', 'llm', 'tool', 'llm', 'llm', 'llm'])
    expect(refunds).toEqual([49])
    const before = provider.requests.length
    refunds = []

    // The fourth model request (step 4) changes; steps 0–3 (three model calls and the refund) do not.
    const changed = PROMPTS.map((p, i) => (i === 3 ? 'Thanks. One more question?' : p))
    const session = divergedSession(recorded.run, path)
    const output = await runInSession(session, () => agent(changed))
    const run = await session.finish({ output })

    expect(session.divergedAt).toBe(4)
    expect(session.divergence).toBeInstanceOf(DivergenceError)
    expect((session.divergence as DivergenceError).stepIndex).toBe(4)
    expect(session.mode).toBe('record')
    expect(session.errors).toEqual([])
    // Only the calls from the divergence on reached the provider; the refund before it never ran again.
    const live = provider.requests.slice(before)
    expect(live).toHaveLength(2)
    expect(JSON.stringify(live[0]?.body)).toContain('Thanks. One more question?')
    expect(refunds).toEqual([])
    expect(output).toBe('ok: Bye')

    // The same run, continued: its id and start are the recording's.
    expect(run.id).toBe(recorded.run.id)
    expect(run.startedAt).toBe(recorded.run.startedAt)
    expect(run.links.replayOf).toBeUndefined()

    writeCassette(path, run, { onWarning: () => {} })
    const text = readFileSync(path, 'utf8')
    const oldSteps = stepTexts(recorded.text)
    const newSteps = stepTexts(text)
    expect(oldSteps).toHaveLength(6)
    expect(newSteps).toHaveLength(6)
    for (let i = 0; i < 4; i++) expect(newSteps[i]).toBe(oldSteps[i])
    for (let i = 4; i < 6; i++) expect(newSteps[i]).not.toBe(oldSteps[i])
    // Byte for byte: the file's steps array is the same text up to the first changed step.
    const prefixEnd = (t: string) => t.indexOf(oldSteps[3]!) + oldSteps[3]!.length
    expect(text.slice(text.indexOf('"steps": ['), prefixEnd(text))).toBe(
      recorded.text.slice(recorded.text.indexOf('"steps": ['), prefixEnd(recorded.text)),
    )
    expect(text).toContain('Thanks. One more question?')
    expect(loadCassette(path).run.steps.map((s) => s.type)).toEqual([
      'llm',
      'llm',
      'tool',
      'llm',
      'llm',
      'llm',
    ])
  })

  it('no divergence: the recording itself, nothing reaches the provider, nothing to write', async () => {
    const path = join(dir, 'same.cassette.json')
    const recorded = await recordOnce(path)
    const mtime = statSync(path).mtimeMs
    const before = provider.requests.length
    refunds = []

    const session = divergedSession(recorded.run, path)
    const output = await runInSession(session, () => agent(PROMPTS))
    const run = await session.finish({ output })

    expect(session.divergedAt).toBeUndefined()
    expect(session.divergence).toBeUndefined()
    expect(session.mode).toBe('replay')
    expect(provider.requests.length).toBe(before)
    expect(refunds).toEqual([])
    expect(run.id).toBe(recorded.run.id)
    expect(JSON.stringify(run.steps)).toBe(JSON.stringify(recorded.run.steps))
    expect(readFileSync(path, 'utf8')).toBe(recorded.text)
    expect(statSync(path).mtimeMs).toBe(mtime)
  })

  it('a changed tool call diverges there: the tool runs, and every later call goes live', async () => {
    const path = join(dir, 'tool.cassette.json')
    const recorded = await recordOnce(path)
    const before = provider.requests.length
    refunds = []

    const session = divergedSession(recorded.run, path)
    const output = await runInSession(session, () => agent(PROMPTS, 30))
    const run = await session.finish({ output })

    expect(session.divergedAt).toBe(2)
    expect(session.divergence?.message).toContain('tool issue_refund')
    expect(refunds).toEqual([30])
    expect(provider.requests.length - before).toBe(3)
    expect(run.steps.slice(0, 2)).toEqual(recorded.run.steps.slice(0, 2))
    expect(run.steps[2]).toMatchObject({ type: 'tool', args: 30, result: { refund: 'rf_1', amount: 30 } })
  })

  it('an agent that now stops earlier keeps the prefix and drops the rest, without an error', async () => {
    const path = join(dir, 'shorter.cassette.json')
    const recorded = await recordOnce(path)
    const before = provider.requests.length

    const session = divergedSession(recorded.run, path)
    const output = await runInSession(session, () => agent(PROMPTS.slice(0, 3)))
    const run = await session.finish({ output })

    expect(provider.requests.length).toBe(before)
    expect(session.divergedAt).toBe(4)
    expect(isCrashlabError(session.divergence, 'E_REPLAY_UNUSED')).toBe(true)
    expect(run.steps).toHaveLength(4)
    expect(JSON.stringify(run.steps)).toBe(JSON.stringify(recorded.run.steps.slice(0, 4)))
  })

  it("a replay: 'live' tool runs in the prefix; the recorded step stays when its result is the same", async () => {
    let stock = 3
    const checkStock = tool(async (sku: string) => ({ sku, stock }), {
      name: 'check_stock',
      sideEffects: false,
      replay: 'live',
    })
    const stockBot = async () => {
      const first = await checkStock('A17')
      await openai.chat.completions.create({
        model: 'gpt-5-mini',
        messages: [{ role: 'user', content: `stock ${first.stock}` }],
      })
      return (await checkStock('B2')).stock
    }
    const path = join(dir, 'live-tool.cassette.json')
    const rec = new Session({ mode: 'record', name: 'stock' })
    writeCassette(path, await rec.finish({ output: await runInSession(rec, stockBot) }), {
      onWarning: () => {},
    })
    const recorded = loadCassette(path).run

    const same = divergedSession(recorded, path)
    await same.finish({ output: await runInSession(same, stockBot) })
    expect(same.divergedAt).toBeUndefined()
    expect(JSON.stringify(same.run.steps)).toBe(JSON.stringify(recorded.steps))

    stock = 0
    const before = provider.requests.length
    const changed = divergedSession(recorded, path)
    const run = await changed.finish({ output: await runInSession(changed, stockBot) })
    expect(changed.divergedAt).toBe(0)
    expect(changed.divergence?.message).toContain('tool check_stock')
    expect(run.steps[0]).toMatchObject({ type: 'tool', result: { sku: 'A17', stock: 0 } })
    expect(provider.requests.length - before).toBe(1)
  })

  it('a plain replay still fails on the same change (onDivergence defaults to fail)', async () => {
    const path = join(dir, 'plain.cassette.json')
    const recorded = await recordOnce(path)
    const before = provider.requests.length
    const session = new Session({ mode: 'replay', recorded: recorded.run, cassettePath: path })
    const changed = PROMPTS.map((p, i) => (i === 3 ? 'Something else' : p))
    const output = await runInSession(session, () => agent(changed).catch(() => 'failed'))
    await expect(session.finish({ output })).rejects.toThrow(/diverged at step 4/)
    expect(session.divergedAt).toBeUndefined()
    expect(provider.requests.length).toBe(before)
  })
})
