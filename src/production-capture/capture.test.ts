import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { tool } from '../engine/tool.ts'
import { openStore } from '../store/open-store.ts'
import { capture } from './capture.ts'

const dir = mkdtempSync(join(tmpdir(), 'crashlab-capture-both-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('capture()', () => {
  it('with { name }: a run in the store, its wrapped tool calls as steps', async () => {
    const lookup = tool(async (id: string) => ({ id, status: 'shipped' }), {
      name: 'get_order',
      sideEffects: false,
    })
    const c = await capture({ name: 'status-bot', input: 'A17', store: join(dir, 'store') })
    const answer = await c.run(async () => `order ${(await lookup('A17')).status}`)
    const stored = await c.close({ output: answer })
    expect(stored?.name).toBe('status-bot')
    const store = await openStore({ dir: join(dir, 'store') })
    try {
      const run = store.load('last')
      expect(run.output).toBe('order shipped')
      expect(run.steps.map((s) => (s.type === 'tool' ? s.name : s.type))).toEqual(['get_order'])
    } finally {
      store.close()
    }
  })

  it('with { output }: an AgentCase written by hand, validated on close', () => {
    const out = join(dir, 'by-hand.agentcase')
    const session = capture({ output: out, name: 'tiny-model' })
    const request = session.modelRequest({ provider: 'local', model: 'tiny', input: { prompt: 'hi' } })
    session.modelResponse({ parentEventId: request, output: { text: 'hello' } })
    const written = session.close()
    expect(written.events.map((e) => e.event_type)).toEqual(
      expect.arrayContaining(['execution.start', 'model.request', 'model.response', 'execution.end']),
    )
    expect(JSON.parse(readFileSync(out, 'utf8')).format_name).toBe('agentcase')
  })
})
