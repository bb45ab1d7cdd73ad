import { describe, expect, it } from 'vitest'
import type { NormalizedRequest } from '../../case/schema/normalized.ts'
import { isCrashlabError } from '../../errors.ts'
import { createRng } from '../create-rng.ts'
import type { PolicyContext, ScriptedProviderOptions } from '../types.ts'
import { checkTurn } from './check-turn.ts'
import { createScript } from './script.ts'

const request: NormalizedRequest = { model: 'm', system: [], messages: [], tools: [], params: {} }
const ctx = (index: number): PolicyContext => ({
  rng: createRng(0),
  index,
  api: 'openai-chat',
  model: 'm',
  stream: false,
  requests: [],
})
const label = (index: number) => ({ index, what: 'openai-chat POST /v1/chat/completions' })

function startError(options: unknown): unknown {
  try {
    createScript(options as ScriptedProviderOptions)
  } catch (err) {
    return err
  }
  return undefined
}

describe('createScript', () => {
  it('serves turns in order and then says which call ran out and how to fix it', async () => {
    const script = createScript({ turns: [{ text: 'a' }, { text: 'b' }] })
    expect(await script.next(request, ctx(0), label(0))).toEqual({ turn: { text: 'a' } })
    expect(await script.next(request, ctx(1), label(1))).toEqual({ turn: { text: 'b' } })
    const out = await script.next(request, ctx(2), label(2))
    expect(out).toMatchObject({ error: { code: 'E_SCRIPT_EXHAUSTED' } })
    const message = 'error' in out ? out.error.message : ''
    expect(message).toContain('model call 3 (openai-chat POST /v1/chat/completions)')
    expect(message).toContain('the script has 2 turns')
    expect(message).toContain('Add a turn')
  })

  it('asks the policy, and reports a policy that throws or returns a bad turn', async () => {
    const seen: number[] = []
    const ok = createScript({
      policy: (_r, c) => {
        seen.push(c.index)
        return { text: `#${c.index}` }
      },
    })
    expect(await ok.next(request, ctx(4), label(4))).toEqual({ turn: { text: '#4' } })
    expect(seen).toEqual([4])

    const throwing = createScript({
      policy: () => {
        throw new Error('boom')
      },
    })
    expect(await throwing.next(request, ctx(0), label(0))).toMatchObject({
      error: { code: 'E_SCRIPT_POLICY', message: expect.stringContaining('boom') },
    })

    const bad = createScript({ policy: async () => ({ txt: 'typo' }) as never })
    expect(await bad.next(request, ctx(0), label(0))).toMatchObject({
      error: { code: 'E_SCRIPT_INVALID', message: expect.stringContaining('unknown field "txt"') },
    })
  })

  it.each([
    [{}, /`turns`.*or `policy`/],
    [{ turns: [], policy: () => ({}) }, /either `turns` or `policy`, not both/],
    [{ turns: [{ text: 1 }] }, /turns\[0\] is not a valid turn[\s\S]*\$\.text/],
    [{ turns: [{ fault: { type: 'explode' } }] }, /turns\[0\][\s\S]*\$\.fault\.type/],
    [{ turns: [{ tool_calls: [] }] }, /unknown field "tool_calls"/],
    [{ turns: [], latencyMs: -1 }, /`latencyMs` must be a number of milliseconds >= 0, got -1/],
    [{ turns: [], port: 70000 }, /`port` must be an integer/],
  ])('refuses invalid options %j with E_SCRIPT_INVALID', (options, message) => {
    const err = startError(options)
    expect(isCrashlabError(err, 'E_SCRIPT_INVALID')).toBe(true)
    expect((err as Error).message).toMatch(message)
  })
})

describe('checkTurn', () => {
  it('accepts every documented shape', () => {
    expect(checkTurn({})).toBeNull()
    expect(
      checkTurn({
        text: 't',
        reasoning: 'r',
        toolCalls: [{ name: 'n', args: { a: [1, null] }, id: 'i' }],
        finishReason: 'length',
        usage: { inputTokens: 1 },
        model: 'm',
        delayMs: 0,
        chunkDelayMs: 5,
        chunkSize: 3,
      }),
    ).toBeNull()
    for (const fault of [
      { type: 'rate_limit' },
      { type: 'rate_limit', retryAfter: 3 },
      { type: 'server_error', status: 502 },
      { type: 'timeout', afterMs: 10 },
      { type: 'reset' },
      { type: 'cut_stream', afterEvents: 2 },
      { type: 'malformed_json' },
    ]) {
      expect(checkTurn({ fault })).toBeNull()
    }
  })

  it('names the path of each problem', () => {
    expect(checkTurn({ fault: { type: 'server_error', status: 504 } })).toContain('$.fault.status')
    expect(checkTurn({ toolCalls: [{ name: 'n' }] })).toContain('$.toolCalls[0].args')
    expect(checkTurn({ chunkSize: 0 })).toContain('$.chunkSize')
    expect(checkTurn('hello')).toContain('got the string "hello"')
  })
})
