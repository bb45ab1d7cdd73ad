import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { itemsModel, lookUpItems, TURNS } from '../bench/crash/agent.ts'
import { ALL_MODEL_FAULTS, ALL_TOOL_FAULTS } from '../src/crash/faults.ts'
import { crashCells } from '../src/crash/inject.ts'
import { installInterceptor, type Run, record } from '../src/index.ts'
import { type ScriptedProvider, startScriptedProvider } from '../src/testing/index.ts'

// The agent of bench/crash-matrix.bench.ts: its figures are per cell of a 10-step run × 12 faults, so
// the run it records must stay 5 × (model call, get_item), and the cells 7 × 5 + 5 × 5. Counts, not times.
let provider: ScriptedProvider
let run: Run

beforeAll(async () => {
  provider = await startScriptedProvider({ policy: itemsModel })
  const interceptor = installInterceptor({ hosts: [provider.url] })
  try {
    const recording = await record('catalogue-bot', lookUpItems, {
      input: { question: 'Are SKU-100 to SKU-104 in stock?', baseURL: `${provider.url}/v1` },
      entryPoint: { kind: 'module', module: './agent.ts', export: 'lookUpItems' },
      config: false,
      store: false,
    })
    if (recording.error) throw recording.error
    run = recording.run
  } finally {
    await interceptor.close()
  }
})
afterAll(async () => {
  await provider.close()
})

describe('the crash-matrix bench agent', () => {
  it('records 10 steps: a model call then a get_item call, five times, each item asked for once', () => {
    expect(run.steps).toHaveLength(10)
    expect(run.steps.map((s) => (s.type === 'tool' ? s.name : s.type))).toEqual(
      Array.from({ length: TURNS }, () => ['llm', 'get_item']).flat(),
    )
    const ids = run.steps.flatMap((s) => (s.type === 'tool' ? [(s.args as { id: string }).id] : []))
    expect(new Set(ids).size).toBe(TURNS)
    expect(provider.requests).toHaveLength(TURNS)
  })

  it('has 60 cells for the bench faults: each model fault at the 5 model calls, each tool fault at the 5 tool calls', () => {
    const faults = [...ALL_MODEL_FAULTS.slice(0, 7), ...ALL_TOOL_FAULTS]
    expect(faults).toHaveLength(12)
    const cells = crashCells(run, faults)
    expect(cells).toHaveLength(7 * 5 + 5 * 5)
    expect(cells.filter((c) => c.step % 2 === 0)).toHaveLength(7 * 5)
  })
})
