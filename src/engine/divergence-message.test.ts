import OpenAI from 'openai'
import { afterEach, describe, expect, it } from 'vitest'
import { startScriptedProvider } from '../testing/start-scripted-provider.ts'
import type { ScriptedProvider } from '../testing/types.ts'
import { currentSession } from './context.ts'
import { DivergenceError } from './divergence-error.ts'
import { handleExchange } from './handle-exchange.ts'
import { recordRun, replayRun } from './internal/test-record-replay.ts'
import type { Session } from './session.ts'
import { tool } from './tool.ts'
import { wrap } from './wrap.ts'

/**
 * A divergence message names the changed field and shows the change itself: for a long value, a window
 * around the first difference with its offset, on both sides, so that a change at the end of a long
 * prompt or deep inside a JSON document is visible, while the message stays bounded.
 */

let provider: ScriptedProvider | undefined
afterEach(async () => {
  await provider?.close()
  provider = undefined
})

async function openai(): Promise<OpenAI> {
  provider = await startScriptedProvider({ policy: () => ({ text: 'ok' }) })
  return wrap(new OpenAI({ baseURL: `${provider.url}/v1`, apiKey: 'test', maxRetries: 0 }))
}

/** The DivergenceError of replaying `recorded` with `agent`; the agent's own failure is swallowed, as agents do. */
async function divergenceOf(recorded: Awaited<ReturnType<typeof recordRun>>, agent: () => Promise<unknown>) {
  const { session } = await replayRun(recorded.loaded, () => agent().catch(() => null))
  const thrown = await session.finish({ output: null }).catch((e: unknown) => e)
  expect(thrown).toBeInstanceOf(DivergenceError)
  return thrown as DivergenceError
}

/** A long system prompt whose every window is recognisable: rule N says its own number. */
const RULES = Array.from({ length: 80 }, (_, i) => `Rule ${i}: be kind to customer number ${i}.`).join('\n')

describe('divergence messages of long values', () => {
  it('a long prompt that changes only at its end: the message shows the end and its offset', async () => {
    const client = await openai()
    const ask = (system: string) =>
      client.chat.completions.create({
        model: 'gpt-5-mini',
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: 'Refund A17' },
        ],
      })
    const recorded = await recordRun(() => ask(`${RULES}\nAnswer in English.`))
    const error = await divergenceOf(recorded, () => ask(`${RULES}\nAnswer in French.`))
    const offset = RULES.length + '\nAnswer in '.length
    expect(error.message).toContain(
      `system prompt part 0: text: at character ${offset} of ${offset + 8} → ${offset + 7}: ` +
        '"…er number 79.\\nAnswer in English." → "…er number 79.\\nAnswer in French."',
    )
  })

  it('a change at the start of a long prompt: the message shows the start', async () => {
    const client = await openai()
    const ask = (user: string) =>
      client.chat.completions.create({ model: 'gpt-5-mini', messages: [{ role: 'user', content: user }] })
    const recorded = await recordRun(() => ask(`Refund order A17.\n${RULES}`))
    const error = await divergenceOf(recorded, () => ask(`Cancel order A17.\n${RULES}`))
    expect(error.message).toContain(
      `message 0 (user), part 0 (text): text: at character 0 of ${RULES.length + 18} → ${RULES.length + 18}: ` +
        '"Refund order A17.\\nRule 0: be kind to cus…" → "Cancel order A17.\\nRule 0: be kind to cus…"',
    )
  })

  it('a JSON tool result that differs deep inside: the message shows where and how', async () => {
    const client = await openai()
    const order = (status: string) => ({
      id: 'A17',
      lines: Array.from({ length: 25 }, (_, i) => ({ sku: `SKU-${i}`, qty: 1 })),
      // Keys in sorted order: a tool result's JSON text is stored canonical.
      refunds: [{ amount: 49, at: '2026-11-01', status }],
    })
    const ask = (status: string) =>
      client.chat.completions.create({
        model: 'gpt-5-mini',
        messages: [
          { role: 'user', content: 'Refund A17' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_order', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 'c1', content: JSON.stringify(order(status)) },
        ],
      })
    const recorded = await recordRun(() => ask('refunded'))
    const error = await divergenceOf(recorded, () => ask('pending'))
    const text = JSON.stringify(order('refunded'))
    const offset = text.indexOf('refunded')
    expect(error.message).toMatch(
      new RegExp(`message 2 \\(tool\\).*: at character ${offset} of ${text.length} → ${text.length - 1}: `),
    )
    expect(error.message).toContain('\\"status\\":\\"refunded\\"}]}"')
    expect(error.message).toContain('\\"status\\":\\"pending\\"}]}"')
  })

  it('a JSON body that differs deep inside a long field: the message names the field and shows the change', async () => {
    const body = (tail: string) => ({
      query: {
        filters: [
          { field: 'status', op: 'eq' },
          { field: 'note', text: `${RULES.slice(0, 900)} ${tail}` },
        ],
      },
    })
    // A call that is not a model call, as the interceptor hands it to the Session of the test.
    const call = (tail: string) =>
      handleExchange(
        currentSession() as Session,
        new Request('https://search.example.com/v1/query', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body(tail)),
        }),
        async () => Response.json({ hits: 0 }),
      )
    const recorded = await recordRun(async () => call('urgent'))
    const error = await divergenceOf(recorded, async () => call('routine'))
    expect(error.message).toContain(
      'body field query.filters[1].text: at character 901 of 907 → 908: ' +
        '"…to customer number 22.\\n urgent" → "…to customer number 22.\\n routine"',
    )
  })

  it('a tool called with a long argument that changed at its end: the message shows the end', async () => {
    const note = tool(async (text: string) => ({ saved: text.length }), {
      name: 'save_note',
      sideEffects: true,
    })
    const recorded = await recordRun(() => note(`${RULES}\nsigned: Ana`))
    const error = await divergenceOf(recorded, () => note(`${RULES}\nsigned: Bob`))
    expect(error.message).toContain(
      `at character ${RULES.length + 9} of ${RULES.length + 12} → ${RULES.length + 12}: ` +
        '"…omer number 79.\\nsigned: Ana" → "…omer number 79.\\nsigned: Bob"',
    )
  })

  it('stays bounded: many long changed fields make a message of a few kilobytes', async () => {
    const client = await openai()
    const huge = 'z'.repeat(50_000)
    const ask = (end: string) =>
      client.chat.completions.create({
        model: 'gpt-5-mini',
        messages: Array.from({ length: 20 }, (_, i) => ({
          role: 'user' as const,
          content: `${huge}${i}${end}`,
        })),
      })
    const recorded = await recordRun(() => ask('a'))
    const error = await divergenceOf(recorded, () => ask('b'))
    expect(error.differences).toHaveLength(20)
    expect(error.message).toContain('… and 8 more')
    expect(error.message.length).toBeLessThan(4_000)
  })
})
