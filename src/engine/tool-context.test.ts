import { CallbackManagerForToolRun } from '@langchain/core/callbacks/manager'
import { ensureConfig } from '@langchain/core/runnables'
import { RequestContext } from '@mastra/core/request-context'
import { RunContext } from '@openai/agents'
import { describe, expect, it } from 'vitest'
import type { ToolStep } from '../case/schema/step.ts'
import { splitFrameworkContext } from './internal/framework-context.ts'
import { recordRun, replayRun } from './internal/test-record-replay.ts'
import { tool } from './tool.ts'

/**
 * Which arguments `tool()` records: the real ones, up to the first context object an agent framework
 * passes after the input (recognised by its shape), unless `args` says otherwise.
 */

const INPUT = { order_id: 'A17' }
const aiSdkOptions = () => ({
  toolCallId: 'call_ai',
  messages: [{ role: 'user', content: 'Refund my order A17' }],
  abortSignal: new AbortController().signal,
  context: {},
})
const agentsDetails = () => ({
  toolCall: {
    type: 'function_call',
    callId: 'call_agents',
    name: 'get_order',
    arguments: '{"order_id":"A17"}',
  },
})
const langchainConfig = () =>
  ensureConfig({
    toolCall: { type: 'tool_call', id: 'call_lc', name: 'get_order', args: INPUT },
    runName: 'get_order',
  })
const mastraContext = () => ({
  requestContext: new RequestContext(),
  agent: { agentId: 'refund-bot', toolCallId: 'call_mastra', messages: [], suspend: async () => {} },
  observe: { span: async (_: string, fn: () => unknown) => fn(), log() {} },
})

describe('splitFrameworkContext', () => {
  it.each([
    ['the AI SDK options', [INPUT, aiSdkOptions()], 'call_ai'],
    [
      'the Agents SDK run context and details',
      [INPUT, new RunContext({ user: 'u1' }), agentsDetails()],
      'call_agents',
    ],
    ['the Agents SDK run context alone', [INPUT, new RunContext()], undefined],
    ['a LangChain RunnableConfig with the ToolCall', [INPUT, langchainConfig()], 'call_lc'],
    ['a bare LangChain config', [INPUT, ensureConfig()], undefined],
    [
      "LangChain's run manager and config (DynamicStructuredTool)",
      [INPUT, new CallbackManagerForToolRun('run-1', [], [], [], [], {}, {}), langchainConfig()],
      'call_lc',
    ],
    ['no run manager, then the config', [INPUT, undefined, langchainConfig()], 'call_lc'],
    ['a Mastra tool context', [INPUT, mastraContext()], 'call_mastra'],
  ])('%s: only the input is an argument', (_, args, callId) => {
    const split = splitFrameworkContext(args as unknown[])
    expect(split.args).toEqual([INPUT])
    expect(split.callId).toBe(callId)
    expect(split.hadContext).toBe(true)
  })

  it.each([
    ['a plain options object', [49, { currency: 'USD' }]],
    ['messages without a tool call id', ['A17', { messages: ['hi'] }]],
    ['tags alone', ['A17', { tags: ['vip'] }]],
    ['an AbortSignal', ['A17', new AbortController().signal]],
    ['a Map', ['A17', new Map([['a', 1]])]],
    ['three numbers', [1, 2, 3]],
  ])('%s is a real argument', (_, args) => {
    expect(splitFrameworkContext(args as unknown[])).toEqual({ args, hadContext: false })
  })

  it('the first argument is always real, even one shaped like a context', () => {
    const options = aiSdkOptions()
    expect(splitFrameworkContext([options]).args).toEqual([options])
  })
})

describe('tool() and its arguments', () => {
  it("a user's two-argument tool keeps both, the same tool called by a framework keeps the input", async () => {
    let runs = 0
    const convert = tool(
      async (amount: number, options?: { currency: string }) => {
        runs++
        return { amount, currency: options?.currency ?? 'USD' }
      },
      { name: 'convert', sideEffects: false },
    )
    const lookup = tool(async (args: typeof INPUT, _options?: unknown) => ({ ...args, total: 49 }), {
      name: 'get_order',
      sideEffects: false,
    })
    const agent = async () => {
      await convert(49, { currency: 'EUR' })
      await lookup(INPUT, aiSdkOptions())
      return 'done'
    }
    const rec = await recordRun(agent)
    const [plain, framed] = rec.loaded.steps as ToolStep[]
    expect(plain).toMatchObject({ name: 'convert', args: [49, { currency: 'EUR' }] })
    expect(plain?.callId).toBeUndefined()
    expect(framed).toMatchObject({ name: 'get_order', args: INPUT, callId: 'call_ai' })
    expect(rec.text).not.toContain('Refund my order A17')

    const { session } = await replayRun(rec.loaded, agent)
    const replayed = await session.finish({ output: null })
    expect(replayed.status).toBe('ok')
    expect(runs).toBe(1)
    // The second argument is part of the match: another currency is another call.
    const changed = await replayRun(rec.loaded, async () => {
      await convert(49, { currency: 'USD' }).catch(() => null)
      return 'done'
    })
    await expect(changed.session.finish({ output: null })).rejects.toThrow(/convert/)
  })

  it("args: 'first' records the first argument only, whatever follows", async () => {
    const unknownContext = { framework: 'home-made', history: ['a long conversation'] }
    const lookup = tool(async (args: typeof INPUT, _ctx: unknown) => args, {
      name: 'get_order',
      sideEffects: false,
      args: 'first',
    })
    const rec = await recordRun(async () => lookup(INPUT, unknownContext))
    expect(rec.loaded.steps[0]).toMatchObject({ args: INPUT })
  })

  it("args: 'all' records every argument, also one shaped like a framework context that 'auto' leaves out", async () => {
    const send = async (to: string, message: { toolCallId: string; messages: string[] }) => ({
      to,
      ...message,
    })
    const notifyAll = tool(send, { name: 'notify', sideEffects: true, args: 'all' })
    const notifyAuto = tool(send, { name: 'notify', sideEffects: true })
    const message = { toolCallId: 'ticket-7', messages: ['Your refund is on its way'] }
    const rec = await recordRun(async () => {
      await notifyAll('ana@example.com', message)
      await notifyAuto('ana@example.com', message)
    })
    const [all, auto] = rec.loaded.steps as ToolStep[]
    expect(all).toMatchObject({ args: ['ana@example.com', message] })
    expect(auto).toMatchObject({ args: 'ana@example.com' })
  })

  it('an unknown args mode is refused when the tool is made', () => {
    expect(() => tool(async () => null, { name: 'x', sideEffects: false, args: 'some' as never })).toThrow(
      /\[crashlab\] tool "x" has `args: "some"`/,
    )
  })
})
