import { describe, expect, it } from 'vitest'
import type { NormalizedRequest } from '../../case/schema/normalized.ts'
import { llmStep } from '../../cost/internal/test-steps.ts'
import { Session } from '../../engine/session.ts'
import type { SessionHooks } from '../../engine/types.ts'
import { CrashlabError } from '../../errors.ts'
import { composeHooks } from './compose-hooks.ts'
import { RuntimeChecks } from './runtime-checks.ts'

const OPENAI = 'https://api.openai.com/v1/chat/completions'

describe('RuntimeChecks', () => {
  it('prices each LLM step as it joins the run and keeps the run total', () => {
    const checks = new RuntimeChecks({ prices: { 'gpt-4o': { input: 2, output: 10 } } })
    const session = new Session({ mode: 'record', hooks: checks.hooks })
    const { index: _i, ...first } = llmStep({
      url: OPENAI,
      model: 'gpt-4o',
      usage: { inputTokens: 1000, outputTokens: 100 },
    })
    const { index: _j, ...second } = llmStep({
      url: OPENAI,
      model: 'gpt-4o',
      usage: { inputTokens: 2000, outputTokens: 300 },
    })
    const a = session.addStep(first)
    const b = session.addStep(second)
    // 1000 × $2/M + 100 × $10/M = $0.003; 2000 × $2/M + 300 × $10/M = $0.007
    expect(a.type === 'llm' && a.cost?.usd).toBeCloseTo(0.003, 12)
    expect(b.type === 'llm' && b.cost?.usd).toBeCloseTo(0.007, 12)
    expect(session.run.cost?.usd).toBeCloseTo(0.01, 12)
  })

  it("layers a test's own checks before the run starts, and refuses them after", () => {
    const checks = new RuntimeChecks({
      checks: { maxSteps: 50, stepRepetition: { threshold: 3, critical: 6 } },
    })
    checks.configure({ maxSteps: 10, stepRepetition: { critical: 4 } })
    expect(checks.checks).toEqual({ maxSteps: 10, stepRepetition: { threshold: 3, critical: 4 } })
    const session = new Session({ mode: 'record', hooks: checks.hooks })
    const { index: _i, ...step } = llmStep({ url: OPENAI, model: 'gpt-4o', usage: null })
    session.addStep(step)
    expect(() => checks.configure({ maxSteps: 5 })).toThrow(/came after the run's first step/)
  })

  it('rejects invalid checks with the path of the bad key', () => {
    expect(() => new RuntimeChecks({ checks: { maxSteps: -1 } })).toThrow(/→ at checks\.maxSteps/)
    expect(() => new RuntimeChecks().configure({ warnAt: 2 } as never, 'the checks of test "x"')).toThrow(
      /the checks of test "x" are not valid/,
    )
  })

  it('finalize sets the findings of a full pass: a budget warns at warnAt', () => {
    const checks = new RuntimeChecks({ checks: { maxLlmCalls: 5, warnAt: 0.8 } })
    const session = new Session({ mode: 'record', hooks: checks.hooks })
    for (let i = 0; i < 3; i++) {
      const { index: _i, ...step } = llmStep({
        url: OPENAI,
        model: 'gpt-4o',
        usage: { inputTokens: 1, outputTokens: 1 },
      })
      session.addStep(step)
    }
    expect(checks.finalize(session.run).findings.filter((f) => f.kind === 'budget')).toEqual([])
    const { index: _i, ...fourth } = llmStep({
      url: OPENAI,
      model: 'gpt-4o',
      usage: { inputTokens: 1, outputTokens: 1 },
    })
    session.addStep(fourth)
    const budget = checks.finalize(session.run).findings.filter((f) => f.kind === 'budget')
    expect(budget).toHaveLength(1)
    expect(budget[0]?.severity).toBe('warn')
  })
})

describe('composeHooks', () => {
  it('runs every onStep in order, and onRequest until one decides, passing rewrites on', async () => {
    const seen: string[] = []
    const first: SessionHooks = {
      onStep: () => seen.push('first'),
      onRequest: (ctx) => ({ rewrite: { ...(ctx.normalized as NormalizedRequest), model: 'rewritten' } }),
    }
    const second: SessionHooks = {
      onStep: () => seen.push('second'),
      onRequest: (ctx) => (ctx.normalized?.model === 'rewritten' ? { block: 'saw the rewrite' } : undefined),
    }
    const hooks = composeHooks(first, undefined, second)
    hooks.onStep?.({} as never, {} as never)
    expect(seen).toEqual(['first', 'second'])
    const ctx = { normalized: { model: 'gpt-4o', system: [], messages: [], tools: [], params: {} } }
    expect(await hooks.onRequest?.(ctx as never)).toEqual({ block: 'saw the rewrite' })
    const onlyRewrite = composeHooks(first, { onStep: () => undefined })
    expect(await onlyRewrite.onRequest?.(ctx as never)).toEqual({
      rewrite: { ...ctx.normalized, model: 'rewritten' },
    })
    expect(composeHooks(undefined)).toEqual({})
  })

  it('an error in one hook is not swallowed', () => {
    const hooks = composeHooks(
      {
        onStep: () => {
          throw new CrashlabError('E_CAPTURE', 'boom')
        },
      },
      { onStep: () => undefined },
    )
    expect(() => hooks.onStep?.({} as never, {} as never)).toThrow(/boom/)
  })
})
