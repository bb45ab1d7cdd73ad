import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadCassette } from '../../src/index.ts'
import { startScriptedProvider } from '../../src/testing/index.ts'
import { unregister } from './oracles.ts'
import { recordCassette, runUnderCrashlab } from './run-refund-bot.ts'
import { refundModel } from './scripted-model.ts'

const committed = join(import.meta.dirname, '__cassettes__')
const INPUT = 'Refund my order A17, it arrived broken'
const dir = mkdtempSync(join(tmpdir(), 'crashlab-refund-'))
afterAll(() => {
  unregister()
  rmSync(dir, { recursive: true, force: true })
})

describe('refund bot, replayed offline from its committed cassettes', () => {
  it('a clean refund: looks the order up, refunds the total, passes its oracle', async () => {
    const { run, answer, refunds } = await runUnderCrashlab(INPUT, {
      mode: 'replay',
      cassette: join(committed, 'refund-a17.cassette.json'),
    })
    expect(answer).toMatch(/refund rf_1 is on its way/)
    expect(run.steps.map((s) => (s.type === 'tool' ? s.name : s.type))).toEqual([
      'llm',
      'get_order',
      'llm',
      'issue_refund',
      'llm',
    ])
    expect(run.outcome).toBe('pass')
    expect(run.checks).toEqual([{ name: 'refundNeverExceedsTotal', passed: true }])
    // the side-effect tool did not run: its result came from the cassette
    expect(refunds).toEqual([])
  })

  it('a policy violation: refunds ten times the total, and the oracle fails it', async () => {
    const { run, refunds } = await runUnderCrashlab(INPUT, {
      mode: 'replay',
      cassette: join(committed, 'refund-a17-violation.cassette.json'),
    })
    expect(run.outcome).toBe('fail')
    expect(run.checks[0]?.passed).toBe(false)
    expect(run.checks[0]?.message).toContain('refund for A17')
    expect(run.checks[0]?.message).toContain('490')
    expect(refunds).toEqual([])
  })
})

describe('refund bot, recorded against the scripted provider', () => {
  it('records a cassette that replays with zero provider requests', async () => {
    const provider = await startScriptedProvider({ policy: refundModel(), seed: 3 })
    const path = join(dir, 'fresh.cassette.json')
    const live = await (async () => {
      try {
        return await recordCassette(path, INPUT, `${provider.url}/v1`)
      } finally {
        await provider.close()
      }
    })()
    expect(provider.requests).toHaveLength(3)
    expect(live.outcome).toBe('pass')
    // the key the client sent is not in the cassette
    expect(JSON.stringify(loadCassette(path))).not.toContain('sk-test-not-a-real-key')

    const replayed = await runUnderCrashlab(INPUT, { mode: 'replay', cassette: path })
    expect(provider.requests).toHaveLength(3)
    expect(replayed.run.outcome).toBe('pass')
    expect(replayed.answer).toBe(live.output)
  })

  it('a different input diverges from the cassette, naming the change', async () => {
    await expect(
      runUnderCrashlab('Refund my order B42, it arrived broken', {
        mode: 'replay',
        cassette: join(committed, 'refund-a17.cassette.json'),
      }),
    ).rejects.toMatchObject({
      code: 'E_DIVERGENCE',
      message: expect.stringContaining(
        '"Refund my order A17, it arrived broken" → "Refund my order B42, it arrived broken"',
      ),
    })
  })
})
