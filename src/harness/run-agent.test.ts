import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { Run } from '../case/schema/run.ts'
import { tool } from '../engine/tool.ts'
import type { SessionHooks } from '../engine/types.ts'
import { wrap } from '../engine/wrap.ts'
import { isCrashlabError } from '../errors.ts'
import { startScriptedProvider } from '../testing/start-scripted-provider.ts'
import type { ScriptedProvider } from '../testing/types.ts'
import { runAgent } from './run-agent.ts'
import type { AgentRunJournal, AgentRunPlan } from './types.ts'

let provider: ScriptedProvider
let openai: OpenAI
let dir: string

beforeAll(async () => {
  provider = await startScriptedProvider({ policy: () => ({ text: 'Order A17 is on its way.' }) })
  openai = wrap(new OpenAI({ baseURL: `${provider.url}/v1`, apiKey: 'sk-harness-test', maxRetries: 0 }))
  dir = mkdtempSync(join(tmpdir(), 'crashlab-harness-'))
})
afterAll(async () => {
  await provider.close()
  rmSync(dir, { recursive: true, force: true })
})

const getOrder = tool(async (id: string) => ({ id, status: 'shipped' }), {
  name: 'get_order',
  sideEffects: false,
})

/** Looks the same order up `times` times (a loop the step-repetition detector sees), then asks the model. */
async function loopingBot(times: number): Promise<string> {
  for (let i = 0; i < times; i++) {
    try {
      await getOrder('A17')
    } catch {
      // a stopped run's tool throws; the agent carries on, as a careless one would
    }
  }
  const completion = await openai.chat.completions.create({
    model: 'gpt-5-mini',
    messages: [{ role: 'user', content: 'Where is A17?' }],
  })
  return completion.choices[0]?.message.content ?? ''
}

/** A journal that logs what the harness asks of it. */
function fakeJournal(log: string[]): AgentRunJournal & { kept: Run[] } {
  const kept: Run[] = []
  return {
    kept,
    hooks: {
      onStep: (step, session) => log.push(`journal:${step.index}:${session.halted ? 'halted' : 'on'}`),
    },
    start: () => log.push('start'),
    finish: (run) => {
      kept.push(run)
      log.push('finish')
      return undefined
    },
    abandon: () => log.push('abandon'),
  }
}

function plan(extra: Partial<AgentRunPlan<number>> = {}): AgentRunPlan<number> {
  return {
    config: false,
    session: { mode: 'record', label: 'harness' },
    name: 'looping-bot',
    finishRule: 'record',
    ...extra,
  }
}

describe('runAgent(plan, fn)', () => {
  it("layers the checks: the config file's, under the plan's own key by key", async () => {
    const config = join(dir, 'crashlab.config.mjs')
    writeFileSync(config, 'export default { checks: { maxSteps: 2, stepRepetition: { threshold: 2 } } }\n')
    const kinds = async (checks?: AgentRunPlan['checks']) => {
      const { run } = await runAgent(plan({ config, input: 3, checks }), loopingBot)
      return [...new Set(run.findings.map((f) => f.kind))].sort()
    }
    expect(await kinds()).toEqual(['budget', 'step_repetition'])
    // The plan's maxSteps wins; the config's stepRepetition still holds.
    expect(await kinds({ maxSteps: 50 })).toEqual(['step_repetition'])
  })

  it("runs the hooks in order: the journal's, the plan's, then the runtime checks'", async () => {
    const log: string[] = []
    const mark = (name: string): SessionHooks => ({
      onStep: (step, session) => log.push(`${name}:${step.index}:${session.halted ? 'halted' : 'on'}`),
    })
    await runAgent(
      plan({
        input: 3,
        // The breaker halts the Session in the checks' hook, on the third same call: a hook after it sees it halted.
        checks: { circuitBreaker: true, stepRepetition: { threshold: 2, critical: 3 } },
        journal: () => fakeJournal(log),
        hooks: [mark('a'), undefined, mark('b')],
      }),
      loopingBot,
    )
    expect(log.slice(0, 7)).toEqual([
      'start',
      'journal:0:on',
      'a:0:on',
      'b:0:on',
      'journal:1:on',
      'a:1:on',
      'b:1:on',
    ])
  })

  it('a run the circuit breaker stopped is checked, graded, kept and returned with the stop as its error', async () => {
    const log: string[] = []
    const journal = fakeJournal(log)
    const oracle = vi.fn(() => true)
    const ended = await runAgent(
      plan({
        input: 4,
        checks: { circuitBreaker: true, stepRepetition: { threshold: 2, critical: 3 } },
        journal: () => journal,
        grade: { agent: 'looping-bot', oracles: [oracle] },
      }),
      loopingBot,
    )
    expect(isCrashlabError(ended.error, 'E_CIRCUIT_OPEN')).toBe(true)
    expect(ended.errorFrom).toBe('run')
    expect(ended.output).toBeUndefined()
    expect(ended.run.status).toBe('error')
    expect(ended.run.error?.code).toBe('E_CIRCUIT_OPEN')
    expect(ended.run.findings.some((f) => f.kind === 'step_repetition')).toBe(true)
    expect(oracle).toHaveBeenCalledTimes(1)
    expect(ended.results).toHaveLength(1)
    expect(journal.kept).toEqual([ended.run])
    expect(log).not.toContain('abandon')
  })

  it('a capture failure throws and keeps nothing; with onCaptureFailure it is handed over and the run kept', async () => {
    const broken: SessionHooks = {
      onStep: () => {
        throw new Error('hook broke')
      },
    }
    const log: string[] = []
    const failing = runAgent(plan({ input: 1, hooks: [broken], journal: () => fakeJournal(log) }), loopingBot)
    await expect(failing).rejects.toMatchObject({ code: 'E_CAPTURE' })
    expect(log).toContain('abandon')
    expect(log).not.toContain('finish')

    const quiet: string[] = []
    const journal = fakeJournal([])
    const ended = await runAgent(
      plan({
        input: 1,
        hooks: [broken],
        journal: () => journal,
        onCaptureFailure: (what) => quiet.push(what),
      }),
      loopingBot,
    )
    expect(quiet).toEqual([`capture of run ${ended.run.id} failed`])
    expect(ended.output).toBe('Order A17 is on its way.')
    expect(journal.kept).toHaveLength(1)
  })

  it("an agent's thrown error comes back as error, the run's status is error, and the run is graded", async () => {
    const boom = new Error('the agent broke')
    const oracle = vi.fn(() => 'broke')
    const ended = await runAgent(
      plan({ input: 1, grade: { agent: 'looping-bot', oracles: [oracle] } }),
      async (n) => {
        await loopingBot(n)
        throw boom
      },
    )
    expect(ended.error).toBe(boom)
    expect(ended.errorFrom).toBe('agent')
    expect(ended.run.status).toBe('error')
    expect(ended.run.error?.message).toBe('the agent broke')
    expect(ended.run.steps).toHaveLength(2)
    expect(ended.run.outcome).toBe('fail')
  })

  it('stores the input and the checks it was given as JSON data, with the entry point and metadata', async () => {
    const input = { order: 'A17', when: new Date(0), drop: undefined }
    const { run } = await runAgent(
      {
        ...plan(),
        input,
        checks: { maxSteps: 9 },
        entryPoint: { kind: 'module', module: './bot.ts', export: 'bot' },
        metadata: { team: 'refunds' },
      } as AgentRunPlan<typeof input>,
      () => 'ok',
    )
    expect(run.input).toEqual({ order: 'A17', when: '1970-01-01T00:00:00.000Z' })
    expect(run.metadata).toEqual({ team: 'refunds', checks: { maxSteps: 9 } })
    expect(run.entryPoint).toEqual({ kind: 'module', module: './bot.ts', export: 'bot' })
    expect(run.name).toBe('looping-bot')
  })
})

describe('runAgent with finishRule replay', () => {
  it('a divergence marks the run failed with it, even when the agent caught it and returned', async () => {
    const { run: recorded } = await runAgent(plan({ input: 1 }), loopingBot)
    const ended = await runAgent(
      plan({ session: { mode: 'replay', recorded, onWarning: () => {} }, input: 1, finishRule: 'replay' }),
      async () => {
        try {
          await getOrder('Z99')
        } catch {
          // swallowed: the run must still fail
        }
        return 'fine'
      },
    )
    expect(ended.errorFrom).toBe('run')
    expect(ended.output).toBeUndefined()
    expect(ended.run.status).toBe('error')
    expect(ended.run.error?.code).toBe((ended.error as { code?: string }).code)
    expect(ended.run.output).toBeNull()
  })

  it('failIf fails a run that ended cleanly, and only then', async () => {
    const { run: recorded } = await runAgent(plan({ input: 1 }), loopingBot)
    const failIf = (): Error => new Error('never went live')
    const replay = plan({ session: { mode: 'replay', recorded }, input: 1, finishRule: 'replay', failIf })
    const clean = await runAgent(replay, loopingBot)
    expect(clean.run.status).toBe('error')
    expect(clean.run.error?.message).toBe('never went live')
    const boom = new Error('the agent broke')
    const threw = await runAgent(replay, async (n) => {
      await loopingBot(n)
      throw boom
    })
    expect(threw.error).toBe(boom)
    expect(threw.errorFrom).toBe('agent')
  })
})

describe('runAgent with finishRule test', () => {
  it("throws the agent's own error once the run ended, ungraded", async () => {
    const boom = new Error('the agent broke')
    const oracle = vi.fn(() => true)
    const run = runAgent(
      plan({ input: 1, finishRule: 'test', grade: { agent: 'x', oracles: [oracle] } }),
      () => {
        throw boom
      },
    )
    await expect(run).rejects.toBe(boom)
    expect(oracle).not.toHaveBeenCalled()
  })
})
