import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Run } from '../case/schema/run.ts'
import { isCrashlabError } from '../errors.ts'
import { startScriptedProvider } from '../testing/start-scripted-provider.ts'
import type { ScriptedProvider } from '../testing/types.ts'
import { runInSession } from './context.ts'
import { Session } from './session.ts'
import { tool } from './tool.ts'
import { wrap } from './wrap.ts'

// A fork Session (`forkAt`): the steps before the fork step replay strictly, the rest is live; a
// side-effect tool never runs (an identical call gets the recorded result, any other is blocked).
let provider: ScriptedProvider
let openai: OpenAI
let recorded: Run
const runs = { lookup: 0, refund: 0 }

const lookup = tool(
  async (id: string) => {
    runs.lookup++
    return { id, total: 10 }
  },
  { name: 'lookup', sideEffects: false },
)
const refund = tool(
  async (amount: number) => {
    runs.refund++
    return { refunded: amount }
  },
  { name: 'refund', sideEffects: true },
)

/** Steps: 0 llm, 1 tool lookup, 2 tool refund, 3 llm. */
async function agent(options: { id?: string; amount?: number } = {}): Promise<string> {
  const first = await openai.chat.completions.create({
    model: 'm',
    messages: [{ role: 'user', content: 'hi' }],
  })
  await lookup(options.id ?? 'A17')
  let refunded: string
  try {
    refunded = JSON.stringify(await refund(options.amount ?? 10))
  } catch (error) {
    refunded = isCrashlabError(error) ? error.code : 'error'
  }
  const last = await openai.chat.completions.create({
    model: 'm',
    messages: [{ role: 'user', content: `${first.choices[0]?.message.content} ${refunded}` }],
  })
  return last.choices[0]?.message.content ?? ''
}

function forkSession(forkAt: number): Session {
  return new Session({ mode: 'replay', recorded, forkAt, onWarning: () => {} })
}

beforeAll(async () => {
  provider = await startScriptedProvider({ policy: (r) => ({ text: `seen ${r.messages.length}` }) })
  openai = wrap(new OpenAI({ baseURL: `${provider.url}/v1`, apiKey: 'sk-fork-test', maxRetries: 0 }))
  const session = new Session({ mode: 'record', name: 'refund' })
  recorded = await session.finish({ output: await runInSession(session, () => agent()) })
  runs.lookup = 0
  runs.refund = 0
})
afterAll(() => provider.close())

describe('Session forkAt', () => {
  it('replays before the fork step, goes live at it even for a call the recording answers', async () => {
    const before = provider.requests.length
    const session = forkSession(3)
    const output = await runInSession(session, () => agent())
    const run = await session.finish({ output })
    expect(provider.requests.length - before).toBe(1)
    expect(session.divergedAt).toBe(3)
    expect(run.id).not.toBe(recorded.id)
    expect(run.links).toEqual({ forkedFrom: recorded.id, forkStep: 3 })
    expect(run.steps.slice(0, 3)).toEqual(recorded.steps.slice(0, 3))
    expect(runs).toEqual({ lookup: 0, refund: 0 })
  })

  it('serves an identical side-effect call from the recording, blocks any other, runs a pure tool live', async () => {
    const same = forkSession(1)
    await same.finish({ output: await runInSession(same, () => agent()) })
    expect(runs.refund).toBe(0)
    expect(same.run.steps[2]).toEqual(recorded.steps[2])

    const other = forkSession(1)
    const output = await runInSession(other, () => agent({ id: 'A18', amount: 5 }))
    const run = await other.finish({ output })
    expect(runs).toEqual({ lookup: 1, refund: 0 })
    expect(run.steps[1]).toMatchObject({ type: 'tool', name: 'lookup', args: 'A18', result: { id: 'A18' } })
    expect(run.steps[2]).toMatchObject({
      type: 'tool',
      name: 'refund',
      args: 5,
      blocked: true,
      error: { code: 'E_FORK_BLOCKED' },
    })
    expect(run.status).toBe('ok')
    // The agent got the error and went on: its last request says so.
    expect(JSON.stringify(provider.requests.at(-1)?.body)).toContain('E_FORK_BLOCKED')
  })

  it('a divergence before the fork step fails the fork as a replay fails', async () => {
    runs.lookup = 0
    const session = forkSession(3)
    const error = await runInSession(session, () => agent({ id: 'A99' })).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'E_DIVERGENCE' })
    await expect(session.finish({ error })).rejects.toMatchObject({ code: 'E_DIVERGENCE' })
    expect(session.mode).toBe('replay')
    expect(runs.lookup).toBe(0)
  })
})
