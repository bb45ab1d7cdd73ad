import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { agentsPayloads } from '../../test/helpers/agents-payloads.ts'
import { tracedOrderBot } from '../../test/helpers/traced-order-bot.ts'
import type { Run } from '../case/schema/run.ts'
import type { ToolStep } from '../case/schema/step.ts'
import { stepContent } from './internal/test-steps.ts'
import { readAgentsTrace } from './read-agents-trace.ts'
import { readOtlp } from './read-otlp.ts'
import { runsToOtlp } from './run-to-otlp.ts'
import { tracesToRuns } from './traces-to-runs.ts'

const FIXTURES = join(import.meta.dirname, 'fixtures')
const CONTENT_KEYS = [
  'gen_ai.system_instructions',
  'gen_ai.input.messages',
  'gen_ai.output.messages',
  'gen_ai.tool.definitions',
  'gen_ai.tool.call.arguments',
  'gen_ai.tool.call.result',
]

function importFixture(name: string): Run {
  const [first] = tracesToRuns(readOtlp(readFileSync(join(FIXTURES, name), 'utf8'), name))
  if (!first) throw new Error(`${name} holds no agent trace`)
  return first.run
}

function loadCassetteRun(path: string): Run {
  return (JSON.parse(readFileSync(resolve(import.meta.dirname, '../..', path), 'utf8')) as { run: Run }).run
}

/** Exported as OTLP JSON text and read back: the run a receiver of the export would store. */
function roundTrip(run: Run, includeContent = true): ReturnType<typeof tracesToRuns> {
  return tracesToRuns(readOtlp(JSON.stringify(runsToOtlp([run], { includeContent })), 'export'))
}

describe('runsToOtlp', () => {
  it.each(['genai-agent.json', 'genai-previous.json', 'ai-sdk.json', 'openinference.json'])(
    'a run imported from %s reads back into the same steps and usage',
    (name) => {
      const run = importFixture(name)
      const [back, ...more] = roundTrip(run)
      expect(more).toEqual([])
      expect(back?.run.name).toBe(run.name)
      expect(back?.run.steps.map(stepContent)).toEqual(run.steps.map(stepContent))
      expect(back?.run.usage).toEqual(run.usage)
      expect(back?.conventions).toEqual(['gen_ai'])
      expect(back?.incompleteSteps).toEqual([])
    },
  )

  it.each([
    ['current', false],
    ['legacy', true],
  ])(
    "the AI SDK's real telemetry (%s integration): import, export, import gives the same steps and usage",
    async (_, legacy) => {
      const { otlp } = await tracedOrderBot('Where is my order A17?', { legacy })
      delete process.env.ORDER_BOT_BASE_URL
      const [imported] = tracesToRuns(readOtlp(otlp, 'order-bot.json'))
      const run = imported!.run
      const [back, ...more] = roundTrip(run)
      expect(more).toEqual([])
      expect(back?.run.steps.map(stepContent)).toEqual(run.steps.map(stepContent))
      expect(back?.run.usage).toEqual(run.usage)
      expect(back?.run.steps.map((s) => s.type)).toEqual(['llm', 'tool', 'llm'])
    },
  )

  it("the Agents SDK's real trace payload: import, export, import gives the same steps and usage", async () => {
    const payloads = await agentsPayloads('Where is my order A17?')
    delete process.env.ORDER_BOT_BASE_URL
    const [imported] = tracesToRuns(readAgentsTrace(JSON.stringify(payloads), 'ingest.json'))
    const run = imported!.run
    const [back] = roundTrip(run)
    expect(back?.run.steps.map(stepContent)).toEqual(run.steps.map(stepContent))
    expect(back?.run.usage).toEqual(run.usage)
  })

  it('a recorded run with MCP tools: its tool steps are tool steps, its http steps (the MCP handshake) are left out', () => {
    const run = loadCassetteRun(
      'examples/integrations/mcp/__cassettes__/mcp.spec.ts/refunds a damaged order through tools on an MCP server.cassette.json',
    )
    const kept = run.steps.filter((s) => s.type !== 'http')
    expect(kept.length).toBeLessThan(run.steps.length)
    expect(kept.some((s) => s.type === 'tool' && s.mcp !== undefined)).toBe(true)
    const [back] = roundTrip(run)
    expect(back?.run.steps.map(stepContent)).toEqual(kept.map(stepContent))
    expect(back?.run.usage).toEqual(run.usage)
    const doc = runsToOtlp([run])
    const spans = doc.resourceSpans[0]!.scopeSpans[0]!.spans
    const mcpSpan = spans.find((s) => s.name === 'execute_tool get_order')
    expect(mcpSpan?.attributes).toContainEqual({
      key: 'mcp.method.name',
      value: { stringValue: 'tools/call' },
    })
    // The wire API's adapter is named by the provider the conventions know.
    const chat = spans.find((s) => s.name.startsWith('chat '))
    expect(chat?.attributes).toContainEqual({ key: 'gen_ai.provider.name', value: { stringValue: 'openai' } })
  })

  it('writes one trace per run: an invoke_agent root, a chat span per model call, an execute_tool span per tool call', () => {
    const run = importFixture('genai-agent.json')
    const doc = runsToOtlp([run], { serviceName: 'weather-service' })
    expect(doc.resourceSpans[0]?.resource.attributes).toEqual([
      { key: 'service.name', value: { stringValue: 'weather-service' } },
    ])
    const spans = doc.resourceSpans[0]!.scopeSpans[0]!.spans
    expect(spans.map((s) => s.name)).toEqual([
      'invoke_agent weather-agent',
      'chat gpt-4o',
      'execute_tool get_weather',
      'chat gpt-4o',
    ])
    const [root, chat, tool] = spans
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1)
    expect(root?.traceId).toMatch(/^[0-9a-f]{32}$/)
    expect(root?.parentSpanId).toBeUndefined()
    for (const s of spans.slice(1)) expect(s.parentSpanId).toBe(root?.spanId)
    const attrs = Object.fromEntries((chat?.attributes ?? []).map((a) => [a.key, a.value]))
    expect(attrs).toMatchObject({
      'gen_ai.operation.name': { stringValue: 'chat' },
      'gen_ai.provider.name': { stringValue: 'openai' },
      'gen_ai.request.model': { stringValue: 'gpt-4o' },
      'gen_ai.request.temperature': { doubleValue: 0.2 },
      'gen_ai.request.max_tokens': { intValue: '256' },
      'gen_ai.response.finish_reasons': { arrayValue: { values: [{ stringValue: 'tool_calls' }] } },
      'server.address': { stringValue: 'api.openai.com' },
      'server.port': { intValue: '443' },
    })
    expect(attrs['gen_ai.usage.input_tokens']).toBeDefined()
    const toolAttrs = Object.fromEntries((tool?.attributes ?? []).map((a) => [a.key, a.value]))
    expect(toolAttrs['gen_ai.tool.name']).toEqual({ stringValue: 'get_weather' })
    expect(toolAttrs['gen_ai.tool.call.id']).toBeDefined()
    // Times in nanoseconds, from the steps' timing.
    const step = run.steps[1]!
    expect(tool?.startTimeUnixNano).toBe(`${Date.parse(step.timing.startedAt)}000000`)
  })

  it('exports a run twice into the same document, and two runs into two traces', () => {
    const run = importFixture('genai-agent.json')
    const other = importFixture('ai-sdk.json')
    expect(JSON.stringify(runsToOtlp([run, other]))).toBe(JSON.stringify(runsToOtlp([run, other])))
    const spans = runsToOtlp([run, other]).resourceSpans[0]!.scopeSpans[0]!.spans
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(2)
    expect(tracesToRuns(readOtlp(JSON.stringify(runsToOtlp([run, other])))).map((t) => t.run.name)).toEqual([
      'weather-agent',
      'support-bot',
    ])
  })

  it('without includeContent, writes no content key, and the re-import marks every step incomplete', () => {
    const run = importFixture('genai-agent.json')
    const text = JSON.stringify(runsToOtlp([run]))
    for (const key of CONTENT_KEYS) expect(text).not.toContain(key)
    expect(text).not.toContain('Paris')
    const [back] = roundTrip(run, false)
    expect(back?.incompleteSteps).toEqual([0, 1, 2])
    expect(back?.run.completeness).toBe('partial')
    expect(back?.run.usage).toEqual(run.usage)
    expect(back?.run.steps.map((s) => s.type)).toEqual(['llm', 'tool', 'llm'])
  })

  it('a failed step and a failed run: status ERROR with the message and error.type, read back as the same errors', () => {
    const run = importFixture('genai-agent.json')
    const steps = run.steps.map((s) =>
      s.type === 'tool'
        ? ({
            ...s,
            result: undefined,
            error: { name: 'TimeoutError', message: 'the weather API timed out' },
          } as ToolStep)
        : s,
    )
    const failed: Run = { ...run, steps, status: 'error', error: { name: 'AgentError', message: 'gave up' } }
    const spans = runsToOtlp([failed]).resourceSpans[0]!.scopeSpans[0]!.spans
    expect(spans[2]?.status).toEqual({ code: 2, message: 'the weather API timed out' })
    expect(spans[2]?.attributes).toContainEqual({ key: 'error.type', value: { stringValue: 'TimeoutError' } })
    expect(spans[0]?.status).toEqual({ code: 2, message: 'gave up' })
    const [back] = roundTrip(failed)
    expect(back?.run.steps[1]?.error).toEqual({ name: 'TimeoutError', message: 'the weather API timed out' })
    expect(back?.run.status).toBe('error')
    expect(back?.run.error).toEqual({ name: 'AgentError', message: 'gave up' })
  })

  it('redacts each run first: a secret in a message or a tool result never reaches the export, content or not', () => {
    const alnum = (n: number) =>
      [...randomBytes(n)]
        .map((b) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'[b % 62])
        .join('')
    const openaiKey = `sk-proj-${alnum(48)}`
    const awsKey = `AKIA${alnum(16).toUpperCase()}`
    const run = importFixture('genai-agent.json')
    const steps = run.steps.map((s) => {
      if (s.type === 'tool') return { ...s, result: { note: `the key is ${awsKey}` } }
      if (s.type !== 'llm' || !s.request.normalized) return s
      const messages = [
        ...s.request.normalized.messages,
        { role: 'user' as const, parts: [{ type: 'text' as const, text: `my key is ${openaiKey}` }] },
      ]
      return { ...s, request: { ...s.request, normalized: { ...s.request.normalized, messages } } }
    })
    const withSecrets: Run = { ...run, name: 'weather-agent', steps }
    expect(JSON.stringify(withSecrets)).toContain(openaiKey)
    for (const includeContent of [true, false]) {
      const text = JSON.stringify(runsToOtlp([withSecrets], { includeContent }))
      expect(text).not.toContain(openaiKey.slice(8))
      expect(text).not.toContain(awsKey.slice(4))
      if (includeContent) expect(text).toContain('my key is')
    }
  })
})
