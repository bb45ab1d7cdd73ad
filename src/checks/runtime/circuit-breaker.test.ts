import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Run } from '../../case/schema/run.ts'
import { runInSession } from '../../engine/context.ts'
import { Session } from '../../engine/session.ts'
import { tool } from '../../engine/tool.ts'
import { wrap } from '../../engine/wrap.ts'
import { isCrashlabError } from '../../errors.ts'
import { record } from '../../record/record.ts'
import { startScriptedProvider } from '../../testing/start-scripted-provider.ts'
import type { ScriptedProvider } from '../../testing/types.ts'
import { RuntimeChecks } from './runtime-checks.ts'

// A gateway in front of the model answers every call with its HTML 502 page, and the agent retries at
// once, again and again: the loop the circuit breaker exists for.
let provider: ScriptedProvider
let openai: OpenAI

beforeAll(async () => {
  provider = await startScriptedProvider({ policy: () => ({ fault: { type: 'server_error', status: 502 } }) })
  openai = wrap(new OpenAI({ baseURL: `${provider.url}/v1`, apiKey: 'sk-breaker-test', maxRetries: 0 }))
})
afterAll(() => provider.close())

/** Asks the model up to 20 times, swallowing every error: nothing in the agent stops the loop. */
async function retryingAgent(question: string): Promise<string> {
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      const completion = await openai.chat.completions.create({
        model: 'gpt-5-mini',
        messages: [{ role: 'user', content: question }],
      })
      return completion.choices[0]?.message.content ?? ''
    } catch {
      // retry at once
    }
  }
  return 'gave up'
}

const checks = { circuitBreaker: true, stepRepetition: { threshold: 3, critical: 5 } }

describe('the circuit breaker', () => {
  let recorded: Run
  let stoppedAt: number

  it('stops a live 502 retry loop at the critical finding: no call leaves after it', async () => {
    const before = provider.requests.length
    const rec = await record('gateway down', retryingAgent, {
      input: 'Where is order A17?',
      checks,
      config: false,
    })
    recorded = rec.run
    expect(isCrashlabError(rec.error, 'E_CIRCUIT_OPEN')).toBe(true)
    expect(String((rec.error as Error).message)).toMatch(/circuit breaker: step_repetition at step/)
    const critical = rec.run.findings.find((f) => f.kind === 'step_repetition' && f.severity === 'critical')
    expect(critical).toBeDefined()
    stoppedAt = Math.max(...(critical?.steps ?? []))
    // The provider saw exactly the calls up to the one that tripped the breaker, and none of the 15 retries after.
    expect(provider.requests.length - before).toBe(stoppedAt + 1)
    expect(rec.run.status).toBe('error')
    expect(rec.run.steps.filter((s) => s.type === 'llm')).toHaveLength(stoppedAt + 1)
  })

  it('stops the replay of that run at the same step, with no request to the provider', async () => {
    const before = provider.requests.length
    const breaker = new RuntimeChecks({ checks })
    const session = new Session({
      mode: 'replay',
      recorded,
      hooks: breaker.hooks,
      label: 'gateway down (replay)',
    })
    const output = await runInSession(session, () => retryingAgent('Where is order A17?'))
    const error = await session.finish({ output }).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(isCrashlabError(error, 'E_CIRCUIT_OPEN')).toBe(true)
    expect(provider.requests.length).toBe(before)
    expect(breaker.tripped?.steps.at(-1)).toBe(stoppedAt)
    expect(session.run.steps).toHaveLength(recorded.steps.length)
  })

  it('stops a wrapped tool too: the tool does not run after the breaker tripped', async () => {
    let runs = 0
    const lookup = tool(
      async (id: string) => {
        runs++
        return { id, status: 'unknown' }
      },
      { name: 'get_order', sideEffects: false },
    )
    const rec = await record(
      'tool loop',
      async () => {
        for (let i = 0; i < 10; i++) await lookup('A17').catch(() => undefined)
        return 'done'
      },
      { input: null, checks, config: false },
    )
    expect(isCrashlabError(rec.error, 'E_CIRCUIT_OPEN')).toBe(true)
    expect(runs).toBe(5)
    expect(rec.run.findings.some((f) => f.kind === 'step_repetition' && f.severity === 'critical')).toBe(true)
  })

  it('without circuitBreaker the loop runs to its end and is only reported', async () => {
    const before = provider.requests.length
    const rec = await record('gateway down, no breaker', retryingAgent, {
      input: 'Where is order A17?',
      checks: { stepRepetition: { threshold: 3, critical: 5 } },
      config: false,
    })
    expect(rec.error).toBeUndefined()
    expect(rec.output).toBe('gave up')
    expect(provider.requests.length - before).toBe(20)
    expect(rec.run.findings.some((f) => f.kind === 'step_repetition' && f.severity === 'critical')).toBe(true)
  })
})
