import { VERSION } from '../../version.ts'
import { sealOf } from '../cassette-seal.ts'
import { serializeCassette } from '../cassette-serialize.ts'
import { CASSETTE_FORMAT, CASSETTE_VERSION, type Cassette } from '../schema/cassette.ts'
import type { JsonValue } from '../schema/json.ts'
import type { Message, Part } from '../schema/normalized.ts'
import type { Run } from '../schema/run.ts'
import type { LlmStep, SseChunk, Step, ToolStep } from '../schema/step.ts'

/**
 * Deterministic, realistic runs for the benchmark and the SIGKILL test (not shipped: `test-*` files are
 * excluded from the build). The shape follows a real agent loop on the OpenAI chat wire: each LLM request
 * carries the whole conversation so far (so requests grow), tool calls answer it, some responses are
 * streamed as SSE chunks, and now and then a plain HTTP exchange (a models list) sits between them.
 * The text avoids anything a redactor could take for a secret, so what is written is what was built.
 */

export interface RealisticRunOptions {
  /** Number of steps in the run. */
  steps: number
  /** Seed of the pseudo-random generator: the same seed always builds the same run. */
  seed: number
  /** Messages kept in the context window before the agent summarizes and starts over. */
  window?: number
  /** Words in a typical message. */
  words?: number
}

const WORDS = (
  'order refund customer arrived broken package shipping label carrier policy return window days ' +
  'receipt amount invoice address warehouse replacement credit balance store manager ticket status ' +
  'pending approved denied escalate review photo damage courier tracking delivered weekend schedule ' +
  'the a of to and is was for with on this that please thanks sorry check look up confirm über café ' +
  'naïve 日本語 注文 返金 😀 🚚 📦'
).split(' ')

/** mulberry32: small, fast and good enough to vary test data. */
function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * Builds a run of `options.steps` steps; about 5 kB a step with the defaults.
 *
 * @example
 * const run = buildRealisticRun({ steps: 1000, seed: 1 }) // ~5 MB as a cassette
 */
export function buildRealisticRun(options: RealisticRunOptions): Run {
  const rand = prng(options.seed)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!
  const sentence = (n: number): string => Array.from({ length: n }, () => pick(WORDS)).join(' ')
  const window = options.window ?? 14
  const words = options.words ?? 40
  const crockford = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
  const id = Array.from({ length: 26 }, (_, i) => (i === 0 ? '0' : pick([...crockford]))).join('')
  const t0 = Date.UTC(2025, 0, 15, 9, 30) + Math.floor(rand() * 1e9)
  const at = (ms: number) => new Date(t0 + ms).toISOString()

  const system: Part[] = [{ type: 'text', text: `You are a support agent. ${sentence(words)}` }]
  let conversation: Message[] = [{ role: 'user', parts: [{ type: 'text', text: sentence(words) }] }]
  const steps: Step[] = []
  let clock = 0
  // Assigned inside llmStep(): the cast keeps TypeScript from narrowing it to `null` for good.
  let pendingCall = null as { id: string; name: string; args: JsonValue } | null
  let llmCalls = 0
  let toolCalls = 0

  while (steps.length < options.steps) {
    const index = steps.length
    clock += Math.floor(rand() * 900)
    if (pendingCall) {
      const result = { ok: true, rows: Array.from({ length: 3 }, (_, i) => ({ i, note: sentence(8) })) }
      const step: ToolStep = {
        index,
        type: 'tool',
        name: pendingCall.name,
        callId: pendingCall.id,
        args: pendingCall.args,
        result,
        sideEffects: pendingCall.name === 'issue_refund',
        timing: { startedAt: at(clock), durationMs: Math.round(rand() * 4000) / 10 },
        error: null,
      }
      steps.push(step)
      toolCalls++
      conversation.push({
        role: 'tool',
        parts: [{ type: 'tool_result', id: pendingCall.id, content: JSON.stringify(result), isError: false }],
      })
      pendingCall = null
      continue
    }
    if (index % 97 === 50) {
      steps.push({
        index,
        type: 'http',
        label: 'models.list',
        request: { method: 'GET', url: 'https://api.openai.com/v1/models', headers: {}, body: null },
        response: { status: 200, headers: { 'x-request-id': `req_${index}` }, body: { data: [] } },
        timing: { startedAt: at(clock), durationMs: 12.5 },
        error: null,
      })
      continue
    }
    if (conversation.length > window) {
      conversation = [{ role: 'user', parts: [{ type: 'text', text: `Summary so far: ${sentence(words)}` }] }]
    }
    steps.push(llmStep(index, clock))
    llmCalls++
  }

  function llmStep(index: number, clock: number): LlmStep {
    const callsTool = rand() < 0.6
    const stream = rand() < 0.3
    const text = sentence(words)
    const call = callsTool
      ? {
          id: `call_${index}`,
          name: pick(['get_order', 'issue_refund', 'search_kb']),
          args: { order: `A${index}` },
        }
      : null
    const messages = conversation.map((m) => ({ ...m, parts: [...m.parts] }))
    const wireMessages = messages.map((m) => ({ role: m.role, content: m.parts.map(partText).join('\n') }))
    const toolCallsOut = call ? [{ type: 'tool_call' as const, ...call }] : []
    const chunks: SseChunk[] | undefined = stream
      ? text.split(' ').map((w, i) => ({
          data: JSON.stringify({ choices: [{ index: 0, delta: { content: `${w} ` } }] }),
          atMs: i * 7.25,
        }))
      : undefined
    conversation.push({ role: 'assistant', parts: [{ type: 'text', text }, ...toolCallsOut] })
    if (call) pendingCall = call
    else conversation.push({ role: 'user', parts: [{ type: 'text', text: sentence(words / 2) }] })
    const finishReason = call ? ('tool_calls' as const) : ('stop' as const)
    return {
      index,
      type: 'llm',
      provider: 'openai-chat',
      endpoint: 'chat.completions',
      request: {
        wire: {
          method: 'POST',
          url: 'https://api.openai.com/v1/chat/completions',
          headers: { 'content-type': 'application/json' },
          body: { model: 'gpt-4o-mini', messages: wireMessages, stream, temperature: 0.2 },
        },
        normalized: {
          model: 'gpt-4o-mini',
          system,
          messages,
          tools: [{ name: 'get_order', description: 'Looks an order up', parameters: { type: 'object' } }],
          params: { temperature: 0.2, stream },
        },
        requestHash: `sha256:${index.toString(16).padStart(64, '0')}`,
      },
      response: {
        wire: {
          status: 200,
          headers: { 'x-request-id': `req_${index}` },
          body: stream ? null : { choices: [{ message: { role: 'assistant', content: text } }] },
          ...(chunks ? { chunks } : {}),
        },
        normalized: {
          model: 'gpt-4o-mini',
          requestId: `req_${index}`,
          parts: [{ type: 'text', text }],
          toolCalls: toolCallsOut,
          finishReason,
          usage: { inputTokens: 100 + index, outputTokens: 20 },
        },
        incomplete: false,
      },
      cost: { usd: 0.00012, catalog: 'builtin' },
      timing: { startedAt: at(clock), durationMs: Math.round(rand() * 20000) / 10 },
      error: null,
    }
  }

  return {
    id,
    name: 'refund-bot',
    tags: ['bench'],
    status: 'ok',
    outcome: 'pass',
    completeness: 'complete',
    input: 'Refund my order A17, it arrived broken',
    output: 'Your refund is on its way.',
    error: null,
    entryPoint: { kind: 'test', file: 'refund.test.ts', test: 'refund' },
    startedAt: at(0),
    endedAt: at(clock + 1000),
    usage: { inputTokens: 0, outputTokens: 0, cachedTokens: 0, reasoningTokens: 0, llmCalls, toolCalls },
    cost: { usd: 0.12 },
    gitSha: null,
    links: {},
    steps,
    checks: [{ name: 'refund under limit', passed: true }],
    findings: [],
    diagnosis: null,
    fixes: [],
    redaction: { status: 'none', records: [] },
    metadata: { seed: options.seed },
  }
}

/**
 * The cassette `writeCassette` writes for a run that needs no redaction.
 *
 * @example
 * serializeCassette(cassetteOf(run)) === readFileSync(path, 'utf8')
 */
export function cassetteOf(run: Run): Cassette {
  return {
    format: CASSETTE_FORMAT,
    version: CASSETTE_VERSION,
    creator: { name: 'crashlab', version: VERSION },
    run,
  }
}

/** The cassette `writeCassette` writes for a valid run that needs no redaction: the envelope, sealed. */
export function writtenCassetteOf(run: Run): Cassette {
  const cassette = cassetteOf(run)
  return { ...cassette, seal: sealOf(serializeCassette(cassette)) }
}

function partText(part: Part): string {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return part.text
    case 'tool_result':
      return part.content
    case 'tool_call':
      return `${part.name}(${JSON.stringify(part.args)})`
    case 'media':
      return `[${part.mediaType}]`
  }
}
