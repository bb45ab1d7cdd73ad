/**
 * Replay cost per LLM call, one OpenAI SDK chat call with 10 messages, in one run:
 *   - crashlab through MSW (startInterceptor) vs a bare MSW handler answering a fixed response (the
 *     floor of the interception path). Goal ≤ 1.2×.
 *   - crashlab through wrap(client) vs a custom `fetch` returning a fixed response (the floor of all).
 *     Goal ≤ 2×.
 *   - nock replaying the same request (method, path and body matched, as a nock back recording does),
 *     so that "both crashlab paths are faster than nock" is measured, not claimed.
 *
 *   node bench/interceptor.bench.ts        (Node 22; ROUNDS=… for more samples)
 *   WRAP_ONLY=1 ROUNDS=300 node bench/interceptor.bench.ts   (the wrap path alone)
 */
import os from 'node:os'
import { HttpResponse, http } from 'msw'
import { setupServer } from 'msw/node'
import nock from 'nock'
import OpenAI from 'openai'
import type { Run } from '../src/case/schema/run.ts'
import { runInSession } from '../src/engine/context.ts'
import { Session } from '../src/engine/session.ts'
import { wrap } from '../src/engine/wrap.ts'
import { startInterceptor } from '../src/interceptor/start-interceptor.ts'
import { median } from './internal/measure.ts'

// nock intercepts from the moment it is imported: it takes its turn like an MSW server does.
nock.restore()

const ROUNDS = Number(process.env.ROUNDS ?? 15)
// A wrap sample (50 calls) takes ~8 ms, where one garbage collection or a scheduling blip moves the
// median: the wrap path gets ten times the samples (~2 s in all), the MSW paths' samples take ~100 ms.
const WRAP_ROUNDS = Number(process.env.WRAP_ROUNDS ?? ROUNDS * 10)
const WARMUP = 3
const CALLS = 50
const ORIGIN = 'http://bench.crashlab.test'
const BASE_URL = `${ORIGIN}/v1`

const MESSAGES: OpenAI.ChatCompletionMessageParam[] = [
  { role: 'system', content: 'You are a refund assistant.' },
]
for (let i = 0; MESSAGES.length < 10; i++) {
  MESSAGES.push({ role: 'user', content: `Where is order A${17 + i}? It was due on Monday.` })
  MESSAGES.push({ role: 'assistant', content: `Order A${17 + i} shipped on Tuesday and arrives Friday.` })
}
MESSAGES.length = 10
const COMPLETION = {
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 1750000000,
  model: 'gpt-5-mini',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: 'Your refund for A17 is on its way.', refusal: null },
      finish_reason: 'stop',
      logprobs: null,
    },
  ],
  usage: { prompt_tokens: 120, completion_tokens: 9, total_tokens: 129 },
}
const BODY = JSON.stringify(COMPLETION)
const fixedFetch: typeof fetch = async () =>
  new Response(BODY, { status: 200, headers: { 'content-type': 'application/json' } })

const call = (client: OpenAI) =>
  client.chat.completions
    .create({ model: 'gpt-5-mini', messages: MESSAGES })
    .then((r) => r.choices[0]?.message.content)
const client = (options: { fetch?: typeof fetch } = {}) =>
  new OpenAI({ baseURL: BASE_URL, apiKey: 'sk-bench', maxRetries: 0, ...options })

/** A recorded run of CALLS identical calls: a replay serves them in recorded order. */
async function recordFixture(): Promise<Run> {
  const session = new Session({ mode: 'record', name: 'bench' })
  const recorder = wrap(client({ fetch: fixedFetch }))
  await runInSession(session, async () => {
    for (let i = 0; i < CALLS; i++) await call(recorder)
  })
  return session.finish({ output: null })
}

/** Milliseconds per call over CALLS calls; `inSession` replays them in one fresh Session. */
async function sample(target: OpenAI, recorded: Run | null): Promise<number> {
  const session = recorded && new Session({ mode: 'replay', recorded })
  const loop = async () => {
    for (let i = 0; i < CALLS; i++) {
      if ((await call(target)) !== 'Your refund for A17 is on its way.') throw new Error('wrong answer')
    }
  }
  const t0 = performance.now()
  if (session) {
    await runInSession(session, loop)
    await session.finish({ output: null })
  } else {
    await loop()
  }
  return (performance.now() - t0) / CALLS
}

const recorded = await recordFixture()
/** wrapped ÷ custom fetch for each pair of samples taken back to back: steadier than a ratio of medians when the load drifts. */
const pairedRatios: number[] = []
const times: Record<'bareMsw' | 'crashlabMsw' | 'nock' | 'customFetch' | 'wrapped', number[]> = {
  bareMsw: [],
  crashlabMsw: [],
  nock: [],
  customFetch: [],
  wrapped: [],
}

// msw 3 runs one server per process, so the two MSW cases take turns; created after each listen(),
// a client never holds a fetch from before interception started.
async function bareMswSamples(n: number, keep: boolean) {
  const server = setupServer(http.post(`${BASE_URL}/chat/completions`, () => HttpResponse.json(COMPLETION)))
  server.listen({ onUnhandledFrame: 'error' })
  const c = client()
  for (let i = 0; i < n; i++) {
    const t = await sample(c, null)
    if (keep) times.bareMsw.push(t)
  }
  server.close()
}
async function crashlabMswSamples(n: number, keep: boolean) {
  const interceptor = startInterceptor({ hosts: [ORIGIN] })
  const c = client()
  for (let i = 0; i < n; i++) {
    const t = await sample(c, recorded)
    if (keep) times.crashlabMsw.push(t)
  }
  await interceptor.close()
}
async function nockSamples(n: number, keep: boolean) {
  nock.activate()
  // The body the SDK sends, matched deep-equal by nock.
  const body = { model: 'gpt-5-mini', messages: MESSAGES } as unknown as nock.DataMatcherMap
  nock(ORIGIN).persist().post('/v1/chat/completions', body).reply(200, COMPLETION)
  const c = client()
  for (let i = 0; i < n; i++) {
    const t = await sample(c, null)
    if (keep) times.nock.push(t)
  }
  nock.cleanAll()
  nock.restore()
}
async function fetchSamples(n: number, keep: boolean) {
  const plain = client({ fetch: fixedFetch })
  const wrapped = wrap(client({ fetch: fixedFetch }))
  for (let i = 0; i < n; i++) {
    const a = await sample(plain, null)
    const b = await sample(wrapped, recorded)
    if (keep) {
      times.customFetch.push(a)
      times.wrapped.push(b)
      pairedRatios.push(b / a)
    }
  }
}

// WRAP_ONLY=1 measures the wrap path alone (no MSW server, no nock), for many more samples in the time:
// the path whose ratio is closest to its goal, and the one a profile of crashlab's own work looks at.
const WRAP_ONLY = process.env.WRAP_ONLY === '1'
if (!WRAP_ONLY) {
  await bareMswSamples(WARMUP, false)
  await crashlabMswSamples(WARMUP, false)
  await nockSamples(WARMUP, false)
}
await fetchSamples(WARMUP, false)
// Two passes in opposite orders, so that neither side always runs on a warmer (or more fragmented) heap.
const half = Math.ceil(ROUNDS / 2)
if (!WRAP_ONLY) {
  await bareMswSamples(half, true)
  await crashlabMswSamples(half, true)
  await nockSamples(half, true)
}
await fetchSamples(Math.ceil(WRAP_ROUNDS / 2), true)
await fetchSamples(WRAP_ROUNDS - Math.ceil(WRAP_ROUNDS / 2), true)
if (!WRAP_ONLY) {
  await nockSamples(ROUNDS - half, true)
  await crashlabMswSamples(ROUNDS - half, true)
  await bareMswSamples(ROUNDS - half, true)
}

const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)])) as Record<
  keyof typeof times,
  number
>
const mswRatio = m.crashlabMsw / m.bareMsw
const wrapRatio = m.wrapped / m.customFetch
console.log('crashlab interceptor benchmark: replay cost per OpenAI SDK chat call (10 messages)')
console.log(
  `  node ${process.version}, ${os.cpus().length} CPUs, ${new Date().toISOString()}; median of ${ROUNDS} samples of ${CALLS} calls (${WRAP_ROUNDS} for the wrap path)`,
)
console.log('')
if (!WRAP_ONLY) {
  console.log(`  floor: bare MSW handler, fixed response   ${m.bareMsw.toFixed(3)} ms`)
  console.log(
    `  crashlab replay through MSW              ${m.crashlabMsw.toFixed(3)} ms   ${mswRatio.toFixed(2)}× (goal ≤ 1.2×) ${mswRatio <= 1.2 ? 'OK' : 'OVER'}`,
  )
}
console.log(`  floor: custom fetch, fixed response      ${m.customFetch.toFixed(3)} ms`)
console.log(
  `  crashlab replay through wrap(client)     ${m.wrapped.toFixed(3)} ms   ${wrapRatio.toFixed(2)}× (goal ≤ 2×) ${wrapRatio <= 2 ? 'OK' : 'OVER'}`,
)
console.log(
  `    paired: median of ${pairedRatios.length} back-to-back sample ratios   ${median(pairedRatios).toFixed(2)}×`,
)
console.log(
  `    crashlab's own work (wrap - floor)     ${((m.wrapped - m.customFetch) * 1000).toFixed(1)} µs`,
)
if (!WRAP_ONLY) {
  const vsNock = (ms: number) =>
    m.nock >= ms
      ? `${(m.nock / ms).toFixed(1)}× faster than nock`
      : `${(ms / m.nock).toFixed(1)}× SLOWER than nock`
  console.log(`  nock replaying the same request          ${m.nock.toFixed(3)} ms`)
  console.log(
    `    crashlab through MSW:  ${vsNock(m.crashlabMsw)}; through wrap(client): ${vsNock(m.wrapped)}`,
  )
}
