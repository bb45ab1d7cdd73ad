import { describe, expect, it } from 'vitest'
import type { ToolStep } from '../case/schema/step.ts'
import { runInSession } from './context.ts'
import { DivergenceError } from './divergence-error.ts'
import { recordRun, replayRun } from './internal/test-record-replay.ts'
import { Session } from './session.ts'
import { tool } from './tool.ts'

function counted() {
  const calls = { lookup: 0, refund: 0 }
  const lookup = tool(
    async (orderId: string) => {
      calls.lookup++
      return { orderId, total: 49 }
    },
    { name: 'get_order', sideEffects: false },
  )
  const refund = tool(
    async (args: { orderId: string; amount: number }) => {
      calls.refund++
      if (args.amount > 49)
        throw Object.assign(new RangeError('over the order total'), { code: 'E_TOO_MUCH' })
      return { refunded: args.amount }
    },
    { name: 'issue_refund', sideEffects: true },
  )
  return { calls, lookup, refund }
}

describe('tool()', () => {
  it('outside a Session it is the function itself', async () => {
    const { calls, lookup } = counted()
    expect(await lookup('A17')).toEqual({ orderId: 'A17', total: 49 })
    expect(calls.lookup).toBe(1)
  })

  it('records args, result, side effects and duration; replay returns the result without running it', async () => {
    const { calls, lookup, refund } = counted()
    const agent = async () => {
      const order = await lookup('A17')
      return refund({ orderId: order.orderId, amount: order.total })
    }
    const rec = await recordRun(agent)
    expect(rec.output).toEqual({ refunded: 49 })
    expect(calls).toEqual({ lookup: 1, refund: 1 })
    const [get, issue] = rec.loaded.steps as ToolStep[]
    expect(get).toMatchObject({
      type: 'tool',
      name: 'get_order',
      args: 'A17',
      result: { orderId: 'A17', total: 49 },
      sideEffects: false,
      error: null,
    })
    expect(issue).toMatchObject({
      name: 'issue_refund',
      args: { orderId: 'A17', amount: 49 },
      sideEffects: true,
    })
    expect(get?.timing.durationMs).toBeGreaterThanOrEqual(0)

    const { output, session } = await replayRun(rec.loaded, agent)
    expect(output).toEqual({ refunded: 49 })
    expect(calls).toEqual({ lookup: 1, refund: 1 })
    const run = await session.finish({ output })
    expect(run.usage.toolCalls).toBe(2)
  })

  it('a thrown error is recorded as data and thrown again at replay, with its name, message and code', async () => {
    const { calls, refund } = counted()
    const agent = () =>
      refund({ orderId: 'A17', amount: 500 }).catch(
        (e: Error & { code?: string }) => `${e.name}: ${e.message} (${e.code})`,
      )
    const rec = await recordRun(agent)
    expect(rec.output).toBe('RangeError: over the order total (E_TOO_MUCH)')
    const step = rec.loaded.steps[0] as ToolStep
    expect(step.error).toEqual({ name: 'RangeError', message: 'over the order total', code: 'E_TOO_MUCH' })
    expect('result' in step).toBe(false)
    const { output } = await replayRun(rec.loaded, agent)
    expect(output).toBe(rec.output)
    expect(calls.refund).toBe(1)
  })

  it('other arguments, or another tool at that point, are a divergence', async () => {
    const { calls, lookup, refund } = counted()
    const rec = await recordRun(() => refund({ orderId: 'A17', amount: 20 }))
    const other = await replayRun(rec.loaded, () =>
      refund({ orderId: 'A17', amount: 25 }).catch((e: unknown) => e),
    )
    expect(other.output).toBeInstanceOf(DivergenceError)
    expect((other.output as DivergenceError).differences).toMatchObject([
      { path: 'args.amount', recorded: 20, actual: 25 },
    ])
    await expect(other.session.finish({ output: null })).rejects.toBeInstanceOf(DivergenceError)

    const wrongTool = await replayRun(rec.loaded, () => lookup('A17').catch((e: unknown) => e))
    const error = wrongTool.output as DivergenceError
    expect(error.message).toContain('tool get_order')
    expect(error.differences.map((d) => d.path)).toContain('name')
    expect(calls).toEqual({ lookup: 0, refund: 1 })
  })

  it("replay: 'live' runs a pure tool at replay, still matched; a side-effect tool cannot", async () => {
    let runs = 0
    const add = tool(
      (a: number, b: number) => {
        runs++
        return a + b
      },
      { name: 'add', sideEffects: false, replay: 'live' },
    )
    const rec = await recordRun(async () => add(2, 3))
    expect(rec.loaded.steps[0]).toMatchObject({ args: [2, 3], result: 5 })
    const { output, session } = await replayRun(rec.loaded, async () => add(2, 3))
    expect(output).toBe(5)
    expect(runs).toBe(2)
    await expect(session.finish({ output })).resolves.toMatchObject({ status: 'ok' })
    const diverged = await replayRun(rec.loaded, async () => {
      try {
        return add(2, 4)
      } catch (e) {
        return e
      }
    })
    expect(diverged.output).toBeInstanceOf(DivergenceError)
    expect(runs).toBe(2)
    expect(() => tool(() => 1, { name: 'send', sideEffects: true, replay: 'live' })).toThrow(/side effects/)
  })

  it('a sync tool stays sync, in record and in replay', async () => {
    const double = tool((n: number) => n * 2, { name: 'double', sideEffects: false })
    const rec = await recordRun(async () => double(21))
    expect(rec.output).toBe(42)
    const session = new Session({ mode: 'replay', recorded: rec.loaded })
    expect(runInSession(session, () => double(21))).toBe(42)
  })
})
