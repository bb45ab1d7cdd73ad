import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadCassette } from './cassette-load.ts'
import { providerFailure } from './provider-failure.ts'
import type { Step } from './schema/step.ts'

const RUNS = join(import.meta.dirname, '../../examples/refund-bot/demo/runs')
const stepsOf = (name: string): Step[] => loadCassette(join(RUNS, `${name}.cassette.json`)).run.steps

describe('providerFailure', () => {
  it("a gateway's 502 is the provider's failure; an answered call and a tool step are not", () => {
    const steps = stepsOf('html-502-retry-loop')
    expect(steps.slice(0, 3).map(providerFailure)).toEqual([
      { status: 502 },
      { status: 502 },
      { status: 502 },
    ])
    expect(steps.slice(3).map(providerFailure)).toEqual([null, null, null, null, null])
  })

  it('a 429 and a call with no response count; a 4xx the request earned does not', () => {
    const [call] = stepsOf('clean-refund')
    if (call?.type !== 'llm' || !call.response) throw new Error('the demo run starts with a model call')
    const answered = (status: number): Step => ({
      ...call,
      response: { ...call.response!, wire: { ...call.response!.wire, status } },
    })
    expect(providerFailure(answered(429))).toEqual({ status: 429 })
    expect(providerFailure(answered(503))).toEqual({ status: 503 })
    expect(providerFailure(answered(400))).toBeNull()
    expect(
      providerFailure({ ...call, response: null, error: { name: 'Error', message: 'socket hang up' } }),
    ).toEqual({
      status: null,
    })
    expect(providerFailure(undefined)).toBeNull()
  })
})
