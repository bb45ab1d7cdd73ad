/**
 * Time to first chunk while recording: a streamed OpenAI SDK chat call to the scripted provider (a real
 * HTTP server on loopback, 50 ms between stream events) read straight from the provider, against the
 * same call recorded by crashlab through wrap(client) and through the MSW interceptor. Recording tees
 * the stream: the caller must see each event as it arrives, not when the recorder is done with it.
 * Goal: time to first chunk within 5 ms of the direct call on both paths. A bare MSW handler that
 * passes the call through (`fetch(bypass(request))`, nothing recorded) is the floor of the MSW path.
 *
 *   node bench/record-ttfb.bench.ts        (Node 22; ROUNDS=… for more samples)
 */
import os from 'node:os'
import { bypass, http } from 'msw'
import { setupServer } from 'msw/node'
import OpenAI from 'openai'
import type { LlmStep } from '../src/case/schema/step.ts'
import { runInSession } from '../src/engine/context.ts'
import { Session } from '../src/engine/session.ts'
import { wrap } from '../src/engine/wrap.ts'
import { startInterceptor } from '../src/interceptor/start-interceptor.ts'
import { startScriptedProvider } from '../src/testing/start-scripted-provider.ts'
import { median } from './internal/measure.ts'

const ROUNDS = Number(process.env.ROUNDS ?? 15)
const WARMUP = 2
const CHUNK_DELAY_MS = 50
const ANSWER = 'Your refund for order A17 is on its way: 49 EUR, back on your card within five days.'

const start = () =>
  startScriptedProvider({ policy: () => ({ text: ANSWER, chunkSize: 24 }), chunkDelayMs: CHUNK_DELAY_MS })
const provider = await start()
const client = (url = provider.url) => new OpenAI({ baseURL: `${url}/v1`, apiKey: 'sk-bench', maxRetries: 0 })

interface Timing {
  /** From the call to the first chunk the SDK yields. */
  first: number
  /** From the call to the end of the stream. */
  last: number
}

/** One streamed call, read to its end; `session` records it. */
async function streamOnce(target: OpenAI, session: Session | null): Promise<Timing> {
  const read = async (): Promise<Timing & { text: string }> => {
    const t0 = performance.now()
    const stream = await target.chat.completions.create({
      model: 'gpt-5-mini',
      messages: [{ role: 'user', content: 'Refund my order A17, it arrived broken' }],
      stream: true,
    })
    let first = -1
    let text = ''
    for await (const chunk of stream) {
      if (first < 0) first = performance.now() - t0
      text += chunk.choices[0]?.delta.content ?? ''
    }
    return { first, last: performance.now() - t0, text }
  }
  const result = session ? await runInSession(session, read) : await read()
  if (result.text !== ANSWER) throw new Error(`wrong answer: ${result.text}`)
  if (session) {
    // The measurement is of a recording only if something was recorded, event by event.
    const run = await session.finish({ output: null })
    const step = run.steps[0] as LlmStep | undefined
    if (run.steps.length !== 1 || !step?.response?.wire.chunks?.length || step.response.incomplete)
      throw new Error(
        `the call was not recorded as a complete stream: ${JSON.stringify(run.steps).slice(0, 600)}`,
      )
  }
  return { first: result.first, last: result.last }
}

const recordSession = () => new Session({ mode: 'record', name: 'bench' })
const times: Record<'direct' | 'wrapped' | 'bareMsw' | 'msw', Timing[]> = {
  direct: [],
  wrapped: [],
  bareMsw: [],
  msw: [],
}

async function directSamples(n: number, keep: boolean) {
  const c = client()
  for (let i = 0; i < n; i++) {
    const t = await streamOnce(c, null)
    if (keep) times.direct.push(t)
  }
}
async function wrappedSamples(n: number, keep: boolean) {
  const c = wrap(client())
  for (let i = 0; i < n; i++) {
    const t = await streamOnce(c, recordSession())
    if (keep) times.wrapped.push(t)
  }
}
// The interceptor's MSW server runs only for its own batch; the client is created after it starts.
// Each batch gets a provider of its own (same script, another port): a keep-alive socket opened
// before this interception started (by another case, or a previous batch) would carry its requests
// past MSW, unrecorded.
async function mswSamples(n: number, keep: boolean) {
  const own = await start()
  const interceptor = startInterceptor({ hosts: [own.url] })
  const c = client(own.url)
  for (let i = 0; i < n; i++) {
    const t = await streamOnce(c, recordSession())
    if (keep) times.msw.push(t)
  }
  await interceptor.close()
  await own.close()
}

// The floor of the MSW path: a bare MSW handler that passes the call through, as crashlab's does when
// recording, with nothing recorded.
async function bareMswSamples(n: number, keep: boolean) {
  const own = await start()
  const server = setupServer(http.all(`${own.url}/*`, ({ request }) => fetch(bypass(request))))
  server.listen({ onUnhandledFrame: 'bypass' })
  const c = client(own.url)
  for (let i = 0; i < n; i++) {
    const t = await streamOnce(c, null)
    if (keep) times.bareMsw.push(t)
  }
  server.close()
  await own.close()
}

await directSamples(WARMUP, false)
await wrappedSamples(WARMUP, false)
await bareMswSamples(WARMUP, false)
await mswSamples(WARMUP, false)
// Two passes in opposite orders, as in the interceptor benchmark.
const half = Math.ceil(ROUNDS / 2)
await directSamples(half, true)
await wrappedSamples(half, true)
await bareMswSamples(half, true)
await mswSamples(half, true)
await mswSamples(ROUNDS - half, true)
await bareMswSamples(ROUNDS - half, true)
await wrappedSamples(ROUNDS - half, true)
await directSamples(ROUNDS - half, true)
await provider.close()

const m = Object.fromEntries(
  Object.entries(times).map(([k, v]) => [
    k,
    { first: median(v.map((t) => t.first)), last: median(v.map((t) => t.last)) },
  ]),
) as Record<keyof typeof times, Timing>

const row = (name: string, t: Timing, base?: Timing, goal = true) => {
  const cells = `${t.first.toFixed(2).padStart(7)} ms   ${t.last.toFixed(1).padStart(6)} ms`
  if (!base) return `  ${name.padEnd(44)}${cells}`
  const diff = t.first - base.first
  const verdict = goal ? ` (goal within 5 ms) ${Math.abs(diff) <= 5 ? 'OK' : 'OVER'}` : ''
  return `  ${name.padEnd(44)}${cells}   first chunk ${diff >= 0 ? '+' : ''}${diff.toFixed(2)} ms${verdict}`
}
console.log('crashlab record benchmark: time to first chunk of a streamed OpenAI SDK chat call')
console.log(
  `  node ${process.version}, ${os.cpus().length} CPUs, ${new Date().toISOString()}; scripted provider on loopback, ` +
    `${CHUNK_DELAY_MS} ms between events; median of ${ROUNDS} calls`,
)
console.log('')
console.log(`  ${''.padEnd(44)}first chunk   whole stream`)
console.log(row('straight to the provider', m.direct))
console.log(row('recording through wrap(client)', m.wrapped, m.direct))
console.log(row('floor: a bare MSW handler passing it through', m.bareMsw, m.direct, false))
console.log(row('recording through the MSW interceptor', m.msw, m.direct))
const overFloor = m.msw.first - m.bareMsw.first
console.log(
  `    the interceptor over the bare MSW handler: first chunk ${overFloor >= 0 ? '+' : ''}${overFloor.toFixed(2)} ms`,
)
