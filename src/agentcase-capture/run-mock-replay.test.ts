import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import type { AgentCase } from '../case/agentcase/schema.ts'
import { CrashlabError, type ErrorCode } from '../errors.ts'
import { recordSample, SAMPLE, sampleCase, scratchDir } from './internal/test-sample-case.ts'
import type { MockReplayContext } from './mock-replay-context.ts'
import { runMockReplay } from './run-mock-replay.ts'

const { dir, cleanup } = scratchDir('mock-replay')
afterAll(cleanup)

const sample = sampleCase(dir, 'sample.agentcase')
const samplePath = join(dir, 'sample.agentcase')
/** Events of the sample: 0 start, 1 request, 2 response, 3 tool.call, 4 tool.result, 5 request, 6 response, 7 end. */
const id = (sequence: number) => sample.events[sequence]!.event_id

/** The application code the sample case was captured from, routed through the context. */
function agent(ctx: MockReplayContext) {
  ctx.modelResponse(SAMPLE.first)
  const order = ctx.toolResult(SAMPLE.tool.name, SAMPLE.tool.args)
  const answer = ctx.modelResponse(SAMPLE.second)
  return { order: order.result, answer }
}

async function replayError(
  c: AgentCase | string,
  fn: (ctx: MockReplayContext) => unknown,
): Promise<CrashlabError> {
  try {
    await runMockReplay(c, fn)
  } catch (err) {
    expect(err).toBeInstanceOf(CrashlabError)
    return err as CrashlabError
  }
  throw new Error('the replay was expected to fail')
}

function expectCode(err: CrashlabError, code: ErrorCode): void {
  expect(err.code).toBe(code)
  expect(err.message.startsWith('[crashlab] mock replay of')).toBe(true)
}

describe('runMockReplay', () => {
  it('serves every recorded answer as data and returns what the code returned', async () => {
    const result = await runMockReplay(samplePath, agent)
    expect(result.value).toEqual({
      order: { status: 'delivered', damaged: true },
      answer: { text: 'Refund issued' },
    })
    expect(result).toMatchObject({
      consumedModelInteractions: 2,
      consumedToolInteractions: 1,
      caseId: sample.case_id,
      executionId: sample.execution_id,
    })
  })

  it('compares in normalized mode: CRLF and surrounding whitespace are not differences', async () => {
    const result = await runMockReplay(sample, (ctx) => {
      ctx.modelResponse({ ...SAMPLE.first, input: { prompt: ' Refund order A17\r\n' } })
      ctx.toolResult('get_order', { id: 'A17' })
      return ctx.modelResponse() // no request given: only the order is checked
    })
    expect(result.value).toEqual({ text: 'Refund issued' })
  })

  it('hands out copies: mutating an answer does not change the case', async () => {
    await runMockReplay(sample, (ctx) => {
      const out = ctx.modelResponse(SAMPLE.first) as { tool_calls: unknown[] }
      out.tool_calls.length = 0
      ctx.toolResult('get_order', { id: 'A17' })
      ctx.modelResponse(SAMPLE.second)
    })
    expect(sample.events[2]!.payload.output).toEqual({ tool_calls: [{ name: 'get_order' }] })
  })

  it('returns a failed tool result as data and rethrows the code’s own error unchanged', async () => {
    const failing = sampleCase(dir, 'tool-failure.agentcase', (s) => {
      const call = s.toolCall({ name: 'issue_refund', arguments: { amount: 490 } })
      s.toolResult({ parentEventId: call, error: new RangeError('amount above the limit') })
    })
    const own = new Error('the agent gave up')
    const err = await runMockReplay(failing, (ctx) => {
      const r = ctx.toolResult('issue_refund', { amount: 490 })
      expect(r).toMatchObject({
        status: 'failure',
        error: { type: 'RangeError', message: 'amount above the limit' },
      })
      throw own
    }).catch((e: unknown) => e)
    expect(err).toBe(own)
  })

  it('E_MOCK_MISSING: the next recorded request has no recorded answer', async () => {
    const unanswered = sampleCase(dir, 'missing.agentcase', (s) => {
      s.modelRequest(SAMPLE.first) // the provider failed: no response was recorded
    })
    const err = await replayError(unanswered, (ctx) => ctx.modelResponse(SAMPLE.first))
    expectCode(err, 'E_MOCK_MISSING')
    expect(err.message).toContain(`model.request #1 (event ${unanswered.events[1]!.event_id})`)
    expect(err.message).toContain('has no model.response')
  })

  it('E_MOCK_MISMATCH: the request differs from the recorded one, field by field', async () => {
    const err = await replayError(sample, (ctx) =>
      ctx.modelResponse({ ...SAMPLE.first, input: { prompt: 'Refund order A18' } }),
    )
    expectCode(err, 'E_MOCK_MISMATCH')
    expect(err.message).toContain(`model.request #1 (event ${id(1)})`)
    expect(err.message).toContain(
      '$.events[1].payload.input.prompt: expected "Refund order A17", got "Refund order A18" (value_mismatch)',
    )
    expect(err.issues).toEqual([
      expect.objectContaining({ code: 'value_mismatch', path: '$.events[1].payload.input.prompt' }),
    ])
  })

  it('E_MOCK_MISMATCH: tool name and arguments, and the order of interactions', async () => {
    const args = await replayError(sample, (ctx) => {
      ctx.modelResponse(SAMPLE.first)
      ctx.toolResult('get_order', { id: 'A17', expand: true })
    })
    expectCode(args, 'E_MOCK_MISMATCH')
    expect(args.message).toContain(`tool.call #3 "get_order" (event ${id(3)})`)
    expect(args.message).toContain(
      '$.events[3].payload.arguments.expand: unexpected, got true (unexpected_key)',
    )

    const order = await replayError(sample, (ctx) => ctx.toolResult('get_order', { id: 'A17' }))
    expectCode(order, 'E_MOCK_MISMATCH')
    expect(order.message).toContain(
      `the next recorded interaction (1 of 3) is model.request #1 (event ${id(1)})`,
    )
  })

  it('E_MOCK_EXTRA: the code asks for more than the case records', async () => {
    const err = await replayError(sample, (ctx) => {
      agent(ctx)
      ctx.modelResponse({ input: 'one more' })
    })
    expectCode(err, 'E_MOCK_EXTRA')
    expect(err.message).toContain(
      `all 3 recorded interactions were consumed; the last was model.request #5 (event ${id(5)})`,
    )
  })

  it('E_MOCK_EXTRA: a call left behind after the entrypoint returned', async () => {
    let leaked: MockReplayContext | undefined
    await runMockReplay(sample, (ctx) => {
      leaked = ctx
      return agent(ctx)
    })
    expect(() => leaked!.modelResponse()).toThrow(
      expect.objectContaining({
        code: 'E_MOCK_EXTRA',
        message: expect.stringContaining('after the replay ended'),
      }),
    )
  })

  it('E_MOCK_UNCONSUMED: the code returns before asking for every recorded interaction', async () => {
    const err = await replayError(sample, (ctx) => ctx.modelResponse(SAMPLE.first))
    expectCode(err, 'E_MOCK_UNCONSUMED')
    expect(err.message).toContain(
      `after 1 of 3 recorded interactions; the next one, tool.call #3 "get_order" (event ${id(3)})`,
    )
    expect(err.issues.map((i) => i.path)).toEqual(['$.events[3]', '$.events[5]'])
  })

  it('fails closed even when the code swallows the contract error', async () => {
    let later: unknown
    const err = await replayError(sample, (ctx) => {
      try {
        ctx.modelResponse({ ...SAMPLE.first, model: 'other-model' })
      } catch {
        // an agent that retries on any error, or ignores it
      }
      try {
        ctx.modelResponse(SAMPLE.first) // every later call fails too: there is no live fallback
      } catch (e) {
        later = e
      }
      return 'looks fine'
    })
    expectCode(err, 'E_MOCK_MISMATCH')
    expect(err.message).toContain('$.events[1].payload.model: expected "tiny-7b", got "other-model"')
    expect(later).toBe(err)
  })

  it('E_MOCK_SOURCE: refuses an incomplete capture unless allowed', async () => {
    const degraded = sampleCase(dir, 'degraded.agentcase', (s) => {
      recordSample(s)
      s.message({ role: 'tool', content: { fn: () => 1 } })
    })
    expect(degraded.completeness).toBe('degraded')
    await expect(runMockReplay(degraded, agent)).rejects.toMatchObject({ code: 'E_MOCK_SOURCE' })
    await expect(runMockReplay(degraded, agent, { allowIncomplete: true })).resolves.toMatchObject({
      consumedModelInteractions: 2,
    })
  })

  it('refuses an entrypoint that is not a function', async () => {
    await expect(runMockReplay(sample, 'module:agent' as never)).rejects.toThrow(/never read from the case/)
  })
})

const SHARED = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../shared/agentcase/fixtures')

describe.skipIf(!existsSync(SHARED))('runMockReplay on the reference fixture', () => {
  it('replays valid_minimal, whose tool payloads say tool_name', async () => {
    const result = await runMockReplay(join(SHARED, 'valid_minimal.agentcase'), (ctx) => {
      ctx.modelResponse()
      return ctx.toolResult('get_weather', { city: 'Example City' })
    })
    expect(result.value).toMatchObject({ status: 'failure' })
  })
})
