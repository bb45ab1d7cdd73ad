import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { JsonValue } from '../../case/schema/json.ts'
import type { Run } from '../../case/schema/run.ts'
import { llmStep } from '../../cost/internal/test-steps.ts'
import { runInSession } from '../../engine/context.ts'
import { type NewStep, Session } from '../../engine/session.ts'
import { tool } from '../../engine/tool.ts'
import { wrap } from '../../engine/wrap.ts'
import { CrashlabError, isCrashlabError } from '../../errors.ts'
import { record } from '../../production-capture/record.ts'
import { startScriptedProvider } from '../../testing/start-scripted-provider.ts'
import type { ScriptedProvider } from '../../testing/types.ts'
import { detectFindings } from '../detectors/detect-findings.ts'
import type { ChecksOptions } from '../detectors/options.ts'
import { type CircuitBreaker, createCircuitBreaker, isCircuitOpen } from './circuit-breaker.ts'
import { RuntimeChecks } from './runtime-checks.ts'

const TIMING = { startedAt: '2026-11-01T09:00:00.000Z', durationMs: 5 }

/** A wrapped tool's step: `failure` is the message it threw with. */
function toolCall(name: string, args: JsonValue, failure?: string): NewStep {
  return {
    type: 'tool',
    name,
    args,
    ...(failure === undefined ? { result: { ok: true } } : {}),
    sideEffects: false,
    error: failure === undefined ? null : { name: 'Error', message: failure },
    timing: TIMING,
  }
}

/** The same model request again (the shape of a retry loop). */
function sameRequest(): NewStep {
  const { index: _index, ...step } = llmStep({
    url: 'https://api.openai.com/v1/chat/completions',
    model: 'gpt-4o',
    usage: null,
  })
  return step
}

function sessionOf(breaker: CircuitBreaker, cassettePath?: string): Session {
  return new Session({
    mode: 'record',
    label: 'refund loop',
    cassettePath,
    hooks: { onStep: breaker.onStep },
  })
}

describe('createCircuitBreaker', () => {
  const limits: Array<{
    limit: string
    checks: ChecksOptions
    step: (i: number) => NewStep
    at: number
    kind: string
  }> = [
    {
      limit: 'stepRepetition.critical, a wrapped tool called again with the same arguments',
      checks: { stepRepetition: { threshold: 3, critical: 6 } },
      step: () => toolCall('get_order', { order_id: 'A17' }),
      at: 5,
      kind: 'step_repetition',
    },
    {
      limit: 'stepRepetition.critical, the same model request again',
      checks: { stepRepetition: { threshold: 2, critical: 4 } },
      step: () => sameRequest(),
      at: 3,
      kind: 'step_repetition',
    },
    {
      limit: 'toolErrorStreak.critical, tool calls failing one after the other',
      checks: { toolErrorStreak: { threshold: 2, critical: 4 } },
      step: (i) => toolCall('get_order', { order_id: `A${i}` }, 'order service unavailable'),
      at: 3,
      kind: 'tool_error_streak',
    },
  ]

  it.each(limits)('trips at $limit, on the step that reaches it', ({ checks, step, at, kind }) => {
    const breaker = createCircuitBreaker({ ...checks, circuitBreaker: true })
    const session = sessionOf(breaker)
    for (let i = 0; i < at; i++) session.addStep(step(i))
    expect(session.halted).toBeUndefined()
    expect(breaker.tripped).toBeUndefined()
    session.addStep(step(at))
    expect(session.halted).toBe(breaker.error)
    expect(breaker.error?.code).toBe('E_CIRCUIT_OPEN')
    expect(breaker.tripped).toMatchObject({ kind, severity: 'critical' })
    expect(breaker.tripped?.steps.at(-1)).toBe(at)
  })

  it('does not trip on a warn or an error finding: a budget over its limit is reported, not stopped', () => {
    const checks: ChecksOptions = { maxSteps: 2, stepRepetition: { threshold: 3, critical: 10 } }
    const breaker = createCircuitBreaker({ ...checks, circuitBreaker: true })
    const session = sessionOf(breaker)
    for (let i = 0; i < 6; i++) session.addStep(toolCall('get_order', { order_id: 'A17' }))
    const severities = detectFindings(session.run, checks).map((f) => `${f.kind} ${f.severity}`)
    expect(severities).toEqual(expect.arrayContaining(['budget error', 'step_repetition warn']))
    expect(session.halted).toBeUndefined()
    expect(breaker.tripped).toBeUndefined()
  })

  it.each([
    ['without circuitBreaker', {}],
    ['with circuitBreaker: false', { circuitBreaker: false }],
  ])('does nothing %s, though a finding is critical', (_, toggle) => {
    const checks: ChecksOptions = { ...toggle, stepRepetition: { threshold: 2, critical: 2 } }
    const breaker = createCircuitBreaker(checks)
    const session = sessionOf(breaker)
    for (let i = 0; i < 5; i++) session.addStep(toolCall('get_order', { order_id: 'A17' }))
    expect(detectFindings(session.run, checks).some((f) => f.severity === 'critical')).toBe(true)
    expect(breaker.enabled).toBe(false)
    expect(session.halted).toBeUndefined()
    expect(session.errors).toEqual([])
    expect(breaker.tripped).toBeUndefined()
    session.run.status = 'ok'
    expect(breaker.finalize(session.run).status).toBe('ok')
  })

  it('trips once: a later critical finding neither halts again nor replaces the first', () => {
    const breaker = createCircuitBreaker({
      circuitBreaker: true,
      stepRepetition: { threshold: 2, critical: 2 },
    })
    const session = sessionOf(breaker)
    session.addStep(toolCall('get_order', { order_id: 'A17' }))
    session.addStep(toolCall('get_order', { order_id: 'A17' }))
    const first = breaker.error
    // Another tool looping: critical too, after the circuit is already open.
    session.addStep(toolCall('search', { q: 'A17' }))
    session.addStep(toolCall('search', { q: 'A17' }))
    expect(detectFindings(session.run, { stepRepetition: { threshold: 2, critical: 2 } })).toHaveLength(2)
    expect(first).toBeDefined()
    expect(breaker.error).toBe(first)
    expect(breaker.tripped?.steps).toEqual([0, 1])
    expect(session.errors).toEqual([first])
  })

  it('names the finding, the steps up to the one that tripped it, the run, and how to turn it off', () => {
    const breaker = createCircuitBreaker({ circuitBreaker: true })
    const session = sessionOf(breaker, '__cassettes__/refund.json')
    for (let i = 0; i < 5; i++) session.addStep(toolCall('get_order', { order_id: 'A17' }))
    expect(breaker.error?.message).toBe(
      '[crashlab] circuit breaker: step_repetition at step 0, 1, 2, 3, 4 of test "refund loop" ' +
        '(cassette __cassettes__/refund.json): get_order was called 5 times with the same arguments. ' +
        'The run was stopped there; the next model or tool call failed with this error. Turn it off with ' +
        '`checks: { circuitBreaker: false }`.',
    )
    expect(breaker.error?.subject).toBe('__cassettes__/refund.json')
    const unlabelled = createCircuitBreaker({ circuitBreaker: true })
    const plain = sessionOf(unlabelled)
    for (let i = 0; i < 5; i++) plain.addStep(toolCall('get_order', { order_id: 'A17' }))
    expect(unlabelled.error?.subject).toBe('refund loop')
  })

  it('finalize marks a tripped run as stopped, even when the agent caught the error and returned', async () => {
    const breaker = createCircuitBreaker({ circuitBreaker: true })
    const session = sessionOf(breaker)
    for (let i = 0; i < 5; i++) session.addStep(toolCall('get_order', { order_id: 'A17' }))
    await expect(session.finish({ output: 'gave up' })).rejects.toBe(breaker.error)
    expect(session.run.status).toBe('ok')
    const run = breaker.finalize(session.run)
    expect(run).toBe(session.run)
    expect(run.status).toBe('error')
    expect(run.output).toBeNull()
    expect(run.error).toEqual({
      name: 'CrashlabError',
      message: breaker.error?.message,
      code: 'E_CIRCUIT_OPEN',
    })
  })

  it("finalize keeps the agent's own error, and leaves a run the breaker did not stop alone", () => {
    const tripped = createCircuitBreaker({ circuitBreaker: true })
    const session = sessionOf(tripped)
    for (let i = 0; i < 5; i++) session.addStep(toolCall('get_order', { order_id: 'A17' }))
    const failed: Run = {
      ...session.run,
      status: 'error',
      error: { name: 'TypeError', message: 'x is undefined' },
    }
    expect(tripped.finalize(failed).error).toEqual({ name: 'TypeError', message: 'x is undefined' })
    const idle = createCircuitBreaker({ circuitBreaker: true })
    const ok: Run = { ...session.run, status: 'ok', output: 'done', error: null }
    expect(idle.finalize(ok)).toMatchObject({ status: 'ok', output: 'done', error: null })
  })

  it("isCircuitOpen tells the breaker's stop from any other error", () => {
    const breaker = createCircuitBreaker({ circuitBreaker: true })
    const session = sessionOf(breaker)
    for (let i = 0; i < 5; i++) session.addStep(toolCall('get_order', { order_id: 'A17' }))
    expect(isCircuitOpen(breaker.error)).toBe(true)
    expect(isCircuitOpen(new CrashlabError('E_CAPTURE', 'circuit breaker: the journal failed'))).toBe(false)
    expect(isCircuitOpen(new Error(breaker.error?.message))).toBe(false)
    expect(isCircuitOpen(undefined)).toBe(false)
  })
})

describe('RuntimeChecks with its circuit breaker', () => {
  it("rebuilds the breaker from a test's own checks given before the first step", () => {
    const checks = new RuntimeChecks({ checks: { stepRepetition: { threshold: 2, critical: 3 } } })
    checks.configure({ circuitBreaker: true })
    const session = new Session({ mode: 'record', hooks: checks.hooks })
    for (let i = 0; i < 3; i++) session.addStep(toolCall('get_order', { order_id: 'A17' }))
    expect(isCircuitOpen(session.halted)).toBe(true)
    expect(checks.tripped?.steps).toEqual([0, 1, 2])
    const run = checks.finalize({ ...session.run, status: 'ok', output: 'done' })
    expect(run.status).toBe('error')
    expect(run.error?.code).toBe('E_CIRCUIT_OPEN')
    expect(run.findings.some((f) => f.kind === 'step_repetition' && f.severity === 'critical')).toBe(true)
  })

  it("and turns it off when the test's checks say so", () => {
    const checks = new RuntimeChecks({ checks: { circuitBreaker: true } })
    checks.configure({ circuitBreaker: false })
    const session = new Session({ mode: 'record', hooks: checks.hooks })
    for (let i = 0; i < 6; i++) session.addStep(toolCall('get_order', { order_id: 'A17' }))
    expect(session.halted).toBeUndefined()
    expect(checks.tripped).toBeUndefined()
  })
})

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

describe('the circuit breaker, end to end', () => {
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
