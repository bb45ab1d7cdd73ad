import { afterEach, describe, expect, it } from 'vitest'
import { asMcpRun, MCP_HANDSHAKE_LABELS } from '../case/internal/test-mcp-run.ts'
import { RunSchema } from '../case/schema/run.ts'
import { CATALOG } from './catalog.ts'
import { llmStep, runOf } from './internal/test-steps.ts'
import { priceRun, unpricedSteps } from './price-run.ts'
import { clearPrices, setPrice } from './set-price.ts'

const M = 1e6
const OPENAI = 'https://api.openai.com/v1/chat/completions'
const ANTHROPIC = 'https://api.anthropic.com/v1/messages'

afterEach(() => clearPrices())

describe('priceRun', () => {
  const gpt = llmStep({ url: OPENAI, model: 'gpt-4o-mini', usage: { inputTokens: 2_000, outputTokens: 300 } })
  const claude = llmStep({
    url: ANTHROPIC,
    provider: 'anthropic-messages',
    model: 'claude-3-5-haiku-20241022',
    usage: { inputTokens: 5_000, outputTokens: 400, cachedTokens: 4_000 },
  })
  // gpt-4o-mini: $0.15 in, $0.60 out. claude-3-5-haiku: $0.80 in, $0.08 cache read, $4 out.
  const gptUsd = (2_000 * 0.15 + 300 * 0.6) / M // $0.00048
  const claudeUsd = (1_000 * 0.8 + 4_000 * 0.08 + 400 * 4) / M // $0.00272

  it('prices every LLM step and sums them into run.cost', () => {
    const priced = priceRun(runOf([gpt, claude]))
    const llm = priced.steps.filter((s) => s.type === 'llm')
    expect(llm.map((s) => s.cost?.usd)).toEqual([gptUsd, claudeUsd])
    expect(priced.cost?.usd).toBeCloseTo(gptUsd + claudeUsd, 12) // $0.0032
    expect(priced.cost).toMatchObject({ catalog: CATALOG.name, catalogVersion: CATALOG.version })
    expect(RunSchema.safeParse(priced).success).toBe(true)
  })

  it('leaves the run it was given unchanged', () => {
    const run = runOf([gpt, claude])
    const before = structuredClone(run)
    const priced = priceRun(run)
    expect(run).toEqual(before)
    expect(priced).not.toBe(run)
    expect(priced.steps[1]).toBe(run.steps[1]) // the tool step is shared, not copied
  })

  it('sums the priced steps only and names the others with unpricedSteps', () => {
    const unknown = llmStep({
      url: OPENAI,
      model: 'gpt-imaginary-9',
      usage: { inputTokens: 10, outputTokens: 1 },
    })
    const failed = llmStep({ url: OPENAI, model: 'gpt-4o', usage: null })
    const priced = priceRun(runOf([gpt, unknown, failed]))
    expect(priced.cost?.usd).toBeCloseTo(gptUsd, 12)
    expect(unpricedSteps(priced)).toEqual([2])
    expect(unpricedSteps(runOf([gpt]))).toEqual([0]) // never priced yet
  })

  it('has no run cost when no step has one', () => {
    const unknown = llmStep({
      url: OPENAI,
      model: 'gpt-imaginary-9',
      usage: { inputTokens: 10, outputTokens: 1 },
    })
    expect(priceRun(runOf([unknown])).cost).toBeNull()
    expect(priceRun(runOf([])).cost).toBeNull()
  })

  it('names every source of a mixed run, and the catalog version when the catalog was used', () => {
    setPrice('my-finetune', { input: 1, output: 2 })
    const local = llmStep({
      url: 'http://localhost:11434/v1/chat/completions',
      model: 'llama3',
      usage: { inputTokens: 9, outputTokens: 9 },
    })
    const mine = llmStep({
      url: OPENAI,
      model: 'my-finetune',
      usage: { inputTokens: 1_000, outputTokens: 1_000 },
    })
    const priced = priceRun(runOf([gpt, local, mine]))
    expect(priced.cost).toEqual({
      usd: gptUsd + 0 + (1_000 * 1 + 1_000 * 2) / M,
      catalog: '@pydantic/genai-prices + local + user',
      catalogVersion: CATALOG.version,
    })
    expect(priceRun(runOf([local])).cost).toEqual({ usd: 0, catalog: 'local' })
  })

  it('passes options on to every step', () => {
    const mine = llmStep({
      url: OPENAI,
      model: 'my-finetune',
      usage: { inputTokens: 1_000, outputTokens: 0 },
    })
    const priced = priceRun(runOf([mine, mine]), { prices: { 'my-finetune': { input: 3, output: 3 } } })
    expect(priced.cost?.usd).toBeCloseTo(0.006, 12)
  })
})

describe('priceRun on a run with MCP steps', () => {
  it('prices the LLM steps only: MCP tool steps and MCP messages cost nothing and are not unpriced', () => {
    const gpt = llmStep({
      url: OPENAI,
      model: 'gpt-4o-mini',
      usage: { inputTokens: 2_000, outputTokens: 300 },
    })
    const plain = runOf([gpt, gpt])
    const mcp = asMcpRun(plain)
    expect(mcp.steps.map((s) => (s.type === 'http' ? s.label : s.type))).toEqual([
      'llm',
      ...MCP_HANDSHAKE_LABELS,
      'tool',
      'llm',
    ])
    const priced = priceRun(mcp)
    expect(priced.cost).toEqual(priceRun(plain).cost)
    for (const i of [1, 2, 3, 4]) expect(priced.steps[i]).toBe(mcp.steps[i])
    expect(priced.steps.filter((s) => 'cost' in s).map((s) => s.index)).toEqual([0, 5])
    expect(unpricedSteps(priced)).toEqual([])
    expect(unpricedSteps(mcp)).toEqual([0, 5])
    expect(RunSchema.safeParse(priced).success).toBe(true)
  })
})
