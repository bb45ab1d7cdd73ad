import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import OpenAI from 'openai'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { loadCassette } from '../case/cassette-load.ts'
import { check } from '../checks/oracles/check.ts'
import { runInSession } from '../engine/context.ts'
import { Session } from '../engine/session.ts'
import { tool } from '../engine/tool.ts'
import { wrap } from '../engine/wrap.ts'
import { createRedactor } from '../redact/create-redactor.ts'
import { startScriptedProvider } from '../testing/start-scripted-provider.ts'
import type { ScriptedProvider } from '../testing/types.ts'
import { record } from './record.ts'

let provider: ScriptedProvider
let openai: OpenAI
let dir: string
const unregister: Array<() => void> = []

beforeAll(async () => {
  provider = await startScriptedProvider({ policy: () => ({ text: 'Order A17 is on its way.' }) })
  openai = wrap(new OpenAI({ baseURL: `${provider.url}/v1`, apiKey: 'sk-record-test', maxRetries: 0 }))
  dir = mkdtempSync(join(tmpdir(), 'crashlab-record-'))
})
afterAll(async () => {
  await provider.close()
  rmSync(dir, { recursive: true, force: true })
})
afterEach(() => {
  for (const u of unregister.splice(0)) u()
})

const getOrder = tool(async (id: string) => ({ id, status: 'shipped' }), {
  name: 'get_order',
  sideEffects: false,
})

async function statusBot(input: string): Promise<string> {
  const order = await getOrder('A17')
  const completion = await openai.chat.completions.create({
    model: 'gpt-5-mini',
    messages: [{ role: 'user', content: `${input} (order ${order.status})` }],
  })
  return completion.choices[0]?.message.content ?? ''
}

describe('record(name, fn, options)', () => {
  it('records, grades with registered and inline oracles, writes the cassette, which replays offline', async () => {
    unregister.push(check('status-bot', (run) => run.llmCalls().length === 1 || 'one model call expected'))
    const path = join(dir, 'status.cassette.json')
    const before = provider.requests.length
    const rec = await record('where is A17', statusBot, {
      agent: 'status-bot',
      input: 'Where is A17?',
      oracles: [
        function looksUpFirst(run) {
          return run.steps[0]?.type === 'tool' || 'get_order first'
        },
      ],
      cassette: path,
    })
    expect(rec.output).toBe('Order A17 is on its way.')
    expect(rec.error).toBeUndefined()
    expect(provider.requests.length).toBe(before + 1)
    expect(rec.run.name).toBe('status-bot')
    expect(rec.run.steps.map((s) => s.type)).toEqual(['tool', 'llm'])
    expect(rec.run.outcome).toBe('pass')
    expect(rec.results.map((r) => r.name)).toEqual(['status-bot#1', 'looksUpFirst'])
    expect(rec.cassettePath).toBe(path)

    const loaded = loadCassette(path).run
    expect(loaded.checks).toHaveLength(2)
    expect(loaded.input).toBe('Where is A17?')
    const replay = new Session({ mode: 'replay', recorded: loaded })
    const again = await runInSession(replay, () => statusBot('Where is A17?'))
    await replay.finish({ output: again })
    expect(again).toBe(rec.output)
    expect(provider.requests.length).toBe(before + 1)
  })

  it('a failing oracle makes the outcome fail without throwing', async () => {
    const rec = await record('fails', statusBot, { input: 'Where is A17?', oracles: [() => 'never good'] })
    expect(rec.run.outcome).toBe('fail')
    expect(rec.run.name).toBe('fails')
    expect(rec.results.filter((r) => !r.passed)).toHaveLength(1)
  })

  it("returns the agent's error unchanged, with the run graded and written (status error)", async () => {
    const boom = new Error('the agent broke')
    const path = join(dir, 'broken.cassette.json')
    const rec = await record(
      'broken',
      async (input: string) => {
        await statusBot(input)
        throw boom
      },
      { input: 'Where is A17?', cassette: path },
    )
    expect(rec.error).toBe(boom)
    expect(rec.output).toBeUndefined()
    expect(rec.run.status).toBe('error')
    expect(rec.run.error?.message).toBe('the agent broke')
    expect(loadCassette(path).run.steps).toHaveLength(2)
  })

  it('writes through the given redactor', async () => {
    const path = join(dir, 'redacted.cassette.json')
    await record('redacted', statusBot, {
      input: 'Where is A17? my ticket is ACME-123456',
      cassette: path,
      redactor: createRedactor({ patterns: [{ id: 'acme', pattern: /ACME-\d{6}/ }] }),
    })
    const text = readFileSync(path, 'utf8')
    expect(text).not.toContain('ACME-123456')
    expect(text).toContain('[REDACTED:acme]')
  })

  it('rejects a call without a name or a function', async () => {
    await expect(record('', statusBot, { input: '' })).rejects.toThrow(/needs a name/)
    await expect(record('x', 'nope' as never, { input: '' })).rejects.toThrow(/needs the agent function/)
  })
})
