/**
 * The compact canonical JSON form (sorted keys, no spaces), crashlab's writer against
 * fast-json-stable-stringify, on the values it is taken over: a long chat request with tools, a
 * Responses request, a tool call's arguments, an http call's key shape. Microseconds per call (the
 * median sample, and the fastest, which a busy machine disturbs least), the ratio library / ours paired
 * per round, and the same ratio for our writer against itself (the noise), with `JSON.stringify` of the
 * same value (no sorting) as the floor. Also: whether the two write the same bytes for each input, and
 * what switching a stored form would change in this repository's recordings. The decision it informs
 * is in docs/cassette.md ("Canonical JSON and fast-json-stable-stringify").
 *
 *   node bench/canonical-json.bench.ts        (Node 22; ROUNDS=… for more samples)
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import stableStringify from 'fast-json-stable-stringify'
import { canonicalStringify } from '../src/case/canonical-json.ts'
import type { JsonValue } from '../src/case/schema/json.ts'
import { httpKey } from '../src/engine/internal/http-key.ts'
import { hashText } from '../src/providers/internal/hash-text.ts'
import { CONVERSATION_TOOLS } from '../src/providers/internal/test-conversation.ts'
import {
  OPENAI_CHAT_CONVERSATION,
  OPENAI_RESPONSES_CONVERSATION,
} from '../src/providers/internal/test-conversation-openai.ts'
import { VOLATILE_PARAMS } from '../src/providers/request-hash.ts'
import { longRequest } from './internal/long-request.ts'
import { median } from './internal/measure.ts'

const ROUNDS = Number(process.env.ROUNDS ?? 21)
const WARMUP = 3

/** Five tools whose schemas nest, for the long request. */
const LONG_TOOLS = (() => {
  return ['get_order', 'issue_refund', 'search_docs', 'send_email', 'escalate'].map((name, i) => ({
    name,
    description: `${name.replace('_', ' ')}: the shop's own tool number ${i}`,
    parameters: {
      ...CONVERSATION_TOOLS[0]!.parameters,
      properties: {
        order_id: { type: 'string', description: 'The order id, e.g. A17' },
        amount: { type: 'number', minimum: 0, description: 'In the order currency' },
        reason: { type: 'string', enum: ['broken', 'late', 'wrong_item', 'other'] },
        items: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } } } },
      },
    },
  }))
})()

/** A tool call's arguments, as detectors and tool matching key them (once per call). */
const TOOL_ARGS: JsonValue = {
  order_id: 'A17',
  amount: 49,
  reason: 'arrived broken',
  items: [{ sku: 'MUG-01', qty: 1 }],
  notify: true,
}

/** A call that is not a model call (a trace upload), as the replay keys it: its redacted shape. */
const TRACE_UPLOAD = {
  method: 'POST',
  url: 'https://api.openai.com/v1/traces/ingest?workflow=refund&page=2',
  headers: { 'content-type': 'application/json' },
  body: {
    data: [
      {
        object: 'trace.span',
        id: 'span_01',
        trace_id: 'trace_01',
        started_at: '2026-11-29T10:00:00.000Z',
        span_data: {
          type: 'function',
          name: 'get_order',
          input: '{"order_id":"A17"}',
          output: '{"total":49}',
        },
      },
    ],
  },
}
const HTTP_SHAPE = httpKey(TRACE_UPLOAD).matched as unknown as JsonValue

const INPUTS: Array<{ name: string; value: JsonValue; calls: number }> = [
  {
    name: 'chat request, 50 msgs, 5 tools',
    value: longRequest('openai-chat', OPENAI_CHAT_CONVERSATION, LONG_TOOLS).body,
    calls: 100,
  },
  {
    name: 'Responses request, 50 items',
    value: longRequest('openai-responses', OPENAI_RESPONSES_CONVERSATION, LONG_TOOLS).body,
    calls: 100,
  },
  { name: 'tool arguments (5 keys)', value: TOOL_ARGS, calls: 20_000 },
  { name: 'an http call key shape (trace upload)', value: HTTP_SHAPE, calls: 5_000 },
]

type Impl = { name: string; fn: (v: JsonValue) => string }
const IMPLS: Impl[] = [
  { name: 'JSON.stringify', fn: (v) => JSON.stringify(v) },
  { name: 'canonicalStringify', fn: (v) => canonicalStringify(v) },
  { name: 'fast-json-stable-stringify', fn: (v) => stableStringify(v) },
  // The same writer again: how far apart two identical sides come out on this machine, the noise.
  { name: 'canonicalStringify, again', fn: (v) => canonicalStringify(v) },
]

/** Microseconds per call over `calls` calls. */
function time(fn: (v: JsonValue) => string, value: JsonValue, calls: number): number {
  let sink = 0
  const t0 = performance.now()
  for (let i = 0; i < calls; i++) sink += fn(value).length
  const us = ((performance.now() - t0) * 1000) / calls
  if (sink < 0) console.log(sink) // keeps the result alive
  return us
}

console.log('crashlab canonical JSON benchmark: compact form, ours against fast-json-stable-stringify')
console.log(
  `  node ${process.version}, ${os.cpus().length} CPUs, ${new Date().toISOString()}; ` +
    `median of ${ROUNDS} rounds after ${WARMUP}, the order of the writers reversed every round`,
)
console.log('')
for (const input of INPUTS) {
  const bytes = JSON.stringify(input.value).length
  const same = canonicalStringify(input.value) === stableStringify(input.value)
  const samples = new Map(IMPLS.map((impl) => [impl.name, [] as number[]]))
  const ratios: number[] = []
  const noise: number[] = []
  for (let r = 0; r < ROUNDS + WARMUP; r++) {
    // Alternate the order, so that neither side always runs after the other's garbage.
    const order = r % 2 === 0 ? IMPLS : [...IMPLS].reverse()
    const round = new Map<string, number>()
    for (const impl of order) round.set(impl.name, time(impl.fn, input.value, input.calls))
    if (r < WARMUP) continue
    for (const [name, us] of round) samples.get(name)!.push(us)
    ratios.push(round.get('fast-json-stable-stringify')! / round.get('canonicalStringify')!)
    noise.push(round.get('canonicalStringify, again')! / round.get('canonicalStringify')!)
  }
  const floor = median(samples.get('JSON.stringify')!)
  console.log(`  ${input.name} (${bytes} B): same bytes from both: ${same ? 'yes' : 'NO'}`)
  const fastest = (name: string) => Math.min(...samples.get(name)!)
  for (const impl of IMPLS) {
    const us = median(samples.get(impl.name)!)
    const best = fastest(impl.name)
    console.log(
      `    ${impl.name.padEnd(28)} median ${us.toFixed(us < 10 ? 2 : 1).padStart(6)} µs (${(us / floor).toFixed(2)}× JSON.stringify)` +
        `   fastest ${best.toFixed(best < 10 ? 2 : 1).padStart(6)} µs`,
    )
  }
  const sorted = [...ratios].sort((a, b) => a - b)
  console.log(
    `    library / ours, paired per round: median ${median(ratios).toFixed(2)}×` +
      ` (range ${sorted[0]!.toFixed(2)}–${sorted.at(-1)!.toFixed(2)}×); fastest against fastest ` +
      `${(fastest('fast-json-stable-stringify') / fastest('canonicalStringify')).toFixed(2)}×`,
  )
  console.log(
    `    noise, ours again / ours:       median ${median(noise).toFixed(2)}×; fastest against fastest ` +
      `${(fastest('canonicalStringify, again') / fastest('canonicalStringify')).toFixed(2)}×`,
  )
  console.log('')
}

// For scale, the whole of the one call site that uses the library: httpKey redacts, writes and hashes.
const keyTimes: number[] = []
for (let r = 0; r < ROUNDS + WARMUP; r++) {
  const t0 = performance.now()
  for (let i = 0; i < 2_000; i++) httpKey(TRACE_UPLOAD)
  if (r >= WARMUP) keyTimes.push(((performance.now() - t0) * 1000) / 2_000)
}
console.log(
  `  httpKey(trace upload) whole (redact, write, sha256): median ${median(keyTimes).toFixed(1)} µs per call`,
)

/**
 * What switching a stored form would do, over this repository's own recordings (the files git tracks):
 * cassettes and AgentCase files whose compact canonical form the library writes differently, and
 * recorded model calls whose request-hash text the library would write differently (another hash).
 */
function storedForms(): void {
  const root = join(import.meta.dirname, '..')
  let files: string[]
  try {
    files = execFileSync('git', ['ls-files', '*.json', '*.agentcase'], { cwd: root, encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
  } catch {
    return // not a git checkout
  }
  const differ: string[] = []
  let recordings = 0
  let calls = 0
  let callsDiffer = 0
  for (const file of files) {
    let doc: { run?: { steps?: unknown } } | null
    try {
      doc = JSON.parse(readFileSync(join(root, file), 'utf8'))
    } catch {
      continue
    }
    const steps = doc?.run?.steps
    if (!file.endsWith('.agentcase') && !Array.isArray(steps)) continue
    recordings++
    if (canonicalStringify(doc) !== stableStringify(doc)) differ.push(file)
    if (!Array.isArray(steps)) continue
    for (const step of steps) {
      if (step?.type !== 'llm' || !step.request?.normalized) continue
      calls++
      const text = hashText('POST', '/', [], step.request.normalized, VOLATILE_PARAMS)
      if (stableStringify(JSON.parse(text)) !== text) callsDiffer++
    }
  }
  console.log('')
  console.log(`  stored forms, over the ${recordings} cassettes and AgentCase files git tracks here:`)
  console.log(
    `    compact form written differently by the library: ${differ.length} (${differ.join(', ') || 'none'})`,
  )
  console.log(
    `    request-hash text written differently by the library: ${callsDiffer} of ${calls} recorded model calls`,
  )
}
storedForms()
