import { describe, expect, it, vi } from 'vitest'
import type { Run } from '../case/schema/run.ts'
import { RuntimeChecks } from '../checks/runtime/runtime-checks.ts'
import { runInSession } from '../engine/context.ts'
import { Session } from '../engine/session.ts'
import { tool } from '../engine/tool.ts'
import { isCrashlabError } from '../errors.ts'
import { startAgentRun } from './start-agent-run.ts'

const getOrder = tool(async (id: string) => ({ id, status: 'shipped' }), {
  name: 'get_order',
  sideEffects: false,
})

/** The same lookup `times` times, swallowing what a stopped run's tool throws. */
async function lookUp(times: number): Promise<void> {
  for (let i = 0; i < times; i++) await getOrder('A17').catch(() => undefined)
}

describe('startAgentRun(plan)', () => {
  it('runs the agent in its Session as often as asked, and ends once: a second finish gives the first answer', async () => {
    const agentRun = await startAgentRun({
      config: false,
      session: { mode: 'record' },
      name: 'bot',
      finishRule: 'record',
    })
    await agentRun.run(() => lookUp(1))
    await agentRun.run(() => lookUp(2))
    expect(agentRun.ended).toBeUndefined()
    const first = await agentRun.finish({ output: 'one' })
    const second = await agentRun.finish({ error: new Error('late') })
    expect(second).toBe(first)
    expect(first.run.steps).toHaveLength(3)
    expect(first.run.status).toBe('ok')
    expect(first.run.output).toBe('one')
    expect(agentRun.ended).toBe(first.run)
  })

  it("names an open Session's run and layers the plan's checks onto the checks already on its hooks", async () => {
    const checks = new RuntimeChecks({ checks: { stepRepetition: { threshold: 2, critical: 3 } } })
    const session = new Session({ mode: 'record', hooks: checks.hooks })
    const agentRun = await startAgentRun({
      session,
      runtimeChecks: checks,
      checks: { circuitBreaker: true },
      name: 'refund-bot',
      input: { order: 'A17' },
      entryPoint: { kind: 'test', file: 'refund.test.ts', test: 'refund > A17' },
      finishRule: 'record',
    })
    expect(agentRun.session).toBe(session)
    expect(session.run.name).toBe('refund-bot')
    expect(session.run.input).toEqual({ order: 'A17' })
    expect(session.run.entryPoint).toEqual({ kind: 'test', file: 'refund.test.ts', test: 'refund > A17' })
    expect(session.run.metadata.checks).toEqual({ circuitBreaker: true })
    await agentRun.run(() => lookUp(4))
    // The breaker came from the plan, the thresholds from the open Session's checks.
    const ended = await agentRun.finish({ output: 'done' })
    expect(isCrashlabError(ended.error, 'E_CIRCUIT_OPEN')).toBe(true)
    expect(ended.run.status).toBe('error')
  })

  it("refuses checks that come after an open Session's first step, naming where they came from", async () => {
    const checks = new RuntimeChecks()
    const session = new Session({ mode: 'record', hooks: checks.hooks })
    await runInSession(session, () => lookUp(1))
    const late = startAgentRun({
      session,
      runtimeChecks: checks,
      checks: { maxSteps: 3 },
      checksWhere: 'the checks of test "late"',
      finishRule: 'test',
    })
    await expect(late).rejects.toThrow(/the checks of test "late" came after the run's first step/)
  })

  it('with finishRule test, a failed finish throws and `ended` keeps the run as checked', async () => {
    const agentRun = await startAgentRun({
      config: false,
      checks: { circuitBreaker: true, stepRepetition: { threshold: 2, critical: 3 } },
      session: { mode: 'record' },
      finishRule: 'test',
    })
    await agentRun.run(() => lookUp(4))
    await expect(agentRun.finish({ output: 'swallowed' })).rejects.toMatchObject({ code: 'E_CIRCUIT_OPEN' })
    expect(agentRun.ended?.status).toBe('error')
    expect(agentRun.ended?.findings.some((f) => f.kind === 'step_repetition')).toBe(true)
  })

  it('`end` ends the run instead of session.finish, and its run is not checked again', async () => {
    const checks = new RuntimeChecks({ checks: { maxSteps: 1 } })
    const finalize = vi.spyOn(checks, 'finalize')
    const session = new Session({ mode: 'record', hooks: checks.hooks })
    const ended: Run[] = []
    const agentRun = await startAgentRun({
      session,
      runtimeChecks: checks,
      finishRule: 'test',
      end: async (result) => {
        const run = checks.finalize(await session.finish(result))
        ended.push(run)
        return run
      },
    })
    await agentRun.run(() => lookUp(2))
    const { run } = await agentRun.finish({ output: 'ok' })
    expect(ended).toEqual([run])
    expect(finalize).toHaveBeenCalledTimes(1)
  })

  it("with finishRule test, an agent's error ends a checked, ungraded run and is not thrown by finish", async () => {
    const boom = new Error('the agent broke')
    const agentRun = await startAgentRun({
      config: false,
      checks: { maxSteps: 1 },
      session: { mode: 'record' },
      finishRule: 'test',
      grade: { agent: 'bot', oracles: [() => true] },
    })
    await agentRun.run(() => lookUp(2))
    const ended = await agentRun.finish({ error: boom })
    expect(ended).toMatchObject({ error: boom, errorFrom: 'agent', results: [] })
    expect(ended.run.status).toBe('error')
    expect(ended.run.checks).toEqual([])
    expect(ended.run.findings.map((f) => f.kind)).toContain('budget')
    expect(agentRun.ended).toBe(ended.run)
  })
})
