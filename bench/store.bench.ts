/**
 * The run store: `crashlab ls` over 100 and 10,000 stored runs, importing 1,000 runs, and what capture
 * costs per LLM call in a plain Node process. The SQLite index (`node:sqlite`, what the store uses) is
 * measured against a plain JSONL index (one summary line appended per save, folded on read), the
 * simplest alternative, in the same run. Goal: `crashlab ls` under a second at 10,000 runs.
 *
 *   node bench/store.bench.ts          (Node 22; ROUNDS=… for more samples)
 */
import { spawnSync } from 'node:child_process'
import {
  appendFileSync,
  closeSync,
  fsyncSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import OpenAI from 'openai'
import { writeCassette } from '../src/case/cassette-write.ts'
import { buildRealisticRun } from '../src/case/internal/test-runs.ts'
import type { Run } from '../src/case/schema/run.ts'
import { wrap } from '../src/engine/wrap.ts'
import { startCapture } from '../src/production-capture/start-capture.ts'
import { IndexDb } from '../src/store/internal/index-db.ts'
import { rowOf, summaryOf } from '../src/store/internal/index-row.ts'
import { testRun } from '../src/store/internal/test-store-runs.ts'
import { openStore } from '../src/store/open-store.ts'
import type { StoredRunSummary } from '../src/store/types.ts'
import { startScriptedProvider } from '../src/testing/start-scripted-provider.ts'
import { median } from './internal/measure.ts'

const STORE = fileURLToPath(new URL('../src/store/index.ts', import.meta.url))
const ROUNDS = Number(process.env.ROUNDS ?? 9)

// ---- the JSONL baseline: `index.jsonl`, one summary per save, later lines win --------------------
function jsonlAppend(path: string, summary: StoredRunSummary): void {
  const fd = openSync(path, 'a')
  writeSync(fd, `${JSON.stringify(summary)}\n`)
  fsyncSync(fd)
  closeSync(fd)
}
function jsonlList(path: string, filter: { tag?: string; limit?: number } = {}): StoredRunSummary[] {
  const byId = new Map<string, StoredRunSummary>()
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line) continue
    const s = JSON.parse(line) as StoredRunSummary
    byId.set(s.id, s)
  }
  let rows = [...byId.values()]
  if (filter.tag) rows = rows.filter((s) => s.tags.includes(filter.tag as string))
  rows.sort((a, b) => (a.startedAt < b.startedAt ? 1 : a.startedAt > b.startedAt ? -1 : a.id < b.id ? 1 : -1))
  return filter.limit ? rows.slice(0, filter.limit) : rows
}
const _lsLines = (rows: StoredRunSummary[]) =>
  rows.map((r) => `${r.id}  ${r.name}  ${r.status}  ${r.steps}  ${r.tokens}  ${r.tags.join(',')}`).join('\n')

function time(fn: () => unknown, rounds = ROUNDS): number {
  fn()
  const xs: number[] = []
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now()
    fn()
    xs.push(performance.now() - t0)
  }
  return median(xs)
}
const ms = (x: number) => `${x.toFixed(x < 1 ? 3 : 1)} ms`
const root = mkdtempSync(join(tmpdir(), 'crashlab-store-bench-'))

// ---- importing 1,000 runs ------------------------------------------------------------------------
const runs: Run[] = Array.from({ length: 1000 }, (_, i) => {
  const run = buildRealisticRun({ steps: 10, seed: i + 1 })
  run.startedAt = new Date(Date.UTC(2026, 10, 1) + i * 60_000).toISOString()
  return run
})
const bytes = JSON.stringify(runs[0]).length
const sqliteDir = join(root, 'sqlite-10k')
const jsonlDir = join(root, 'jsonl-10k')
const floorDir = join(root, 'floor')
const store = await openStore({ dir: sqliteDir, config: false })
let t0 = performance.now()
for (const run of runs) writeCassette(join(floorDir, `${run.id}.cassette.json`), run)
const floorImport = performance.now() - t0
t0 = performance.now()
for (const run of runs) store.save(run)
const sqliteImport = performance.now() - t0
t0 = performance.now()
for (const run of runs) {
  const cassette = writeCassette(join(jsonlDir, 'runs', `${run.id}.cassette.json`), run)
  jsonlAppend(
    join(jsonlDir, 'index.jsonl'),
    summaryOf(rowOf(cassette.run, 'runs/x'), '[]', (p) => p),
  )
}
const jsonlImport = performance.now() - t0
console.log(`\nimporting 1,000 runs (10 steps, ~${(bytes / 1024).toFixed(0)} kB each), total and per run`)
console.log(`  floor: writeCassette alone        ${ms(floorImport)}  ${ms(floorImport / 1000)}/run`)
console.log(`  store.save (SQLite index)         ${ms(sqliteImport)}  ${ms(sqliteImport / 1000)}/run`)
console.log(`  writeCassette + JSONL append      ${ms(jsonlImport)}  ${ms(jsonlImport / 1000)}/run`)

// ---- 10,000 runs: 9,000 more index rows (ls reads only the index) --------------------------------
const more = Array.from({ length: 9000 }, (_, i) =>
  testRun({ minute: -1 - i, severities: i % 7 === 0 ? ['warn'] : [], tags: i % 100 === 0 ? ['picked'] : [] }),
)
const index = new IndexDb(join(sqliteDir, 'index.db'))
t0 = performance.now()
for (let i = 0; i < more.length; i += 500) {
  index.upsertMany(
    more
      .slice(i, i + 500)
      .map((run) => ({ row: rowOf(run, `runs/${run.id}.cassette.json`), tags: run.tags })),
  )
}
const batched = performance.now() - t0
index.close()
for (const run of more)
  appendFileSync(
    join(jsonlDir, 'index.jsonl'),
    `${JSON.stringify(summaryOf(rowOf(run, 'r'), JSON.stringify(run.tags), (p) => p))}\n`,
  )
console.log(`  (9,000 more index rows in transactions of 500: ${ms(batched)}, ${ms(batched / 9000)}/run)`)
store.close()

// ---- 100 runs: a store of its own ----------------------------------------------------------------
const smallDir = join(root, 'sqlite-100')
const smallJsonl = join(root, 'jsonl-100.index.jsonl')
const small = await openStore({ dir: smallDir, config: false })
for (const run of runs.slice(0, 100)) jsonlAppend(smallJsonl, small.save(run))
small.close()

console.log('\ncrashlab ls (open the index, newest 50, close), in process; median of', ROUNDS)
for (const [label, dir, jsonl] of [
  ['100 runs', smallDir, smallJsonl],
  ['10,000 runs', sqliteDir, join(jsonlDir, 'index.jsonl')],
] as const) {
  const s = await openStore({ dir, config: false })
  const sqliteLs = time(() => {
    const st = new IndexDb(join(dir, 'index.db'))
    st.list({ limit: 50 })
    st.close()
  })
  const all = time(() => s.list())
  const tag = time(() => s.list({ tag: 'picked' }))
  const flagged = time(() => s.list({ flagged: true, limit: 50 }))
  const prefix = time(() => s.resolve(s.list({ limit: 1 })[0]!.id.slice(0, 12)))
  s.close()
  const jsonlLs = time(() => jsonlList(jsonl, { limit: 50 }))
  const jsonlTag = time(() => jsonlList(jsonl, { tag: 'picked' }))
  console.log(
    `  ${label}: SQLite ls ${ms(sqliteLs)} | all rows ${ms(all)} | --tag ${ms(tag)} | --flagged ${ms(flagged)} | resolve prefix ${ms(prefix)}`,
  )
  console.log(`  ${label}: JSONL  ls ${ms(jsonlLs)} | --tag ${ms(jsonlTag)}`)
}

// One `crashlab ls` in a fresh Node process, loading only what it needs: the store module (for SQLite)
// or nothing (for JSONL: read, fold, sort, print).
const print = `r => r.map(s => s.id + ' ' + s.name + ' ' + s.status + ' ' + s.steps + ' ' + s.tags.join(',')).join('\\n')`
const sqliteChild = (dir: string) =>
  `import { openStore } from ${JSON.stringify(STORE)}; const s = await openStore({ dir: ${JSON.stringify(dir)}, config: false });` +
  ` console.log((${print})(s.list({ limit: 50 }))); s.close()`
const jsonlChild = (path: string) =>
  `import { readFileSync } from 'node:fs'; const m = new Map(); for (const l of readFileSync(${JSON.stringify(path)}, 'utf8').split('\\n')) if (l) { const s = JSON.parse(l); m.set(s.id, s) }` +
  ` const r = [...m.values()].sort((a, b) => (a.startedAt < b.startedAt ? 1 : a.startedAt > b.startedAt ? -1 : a.id < b.id ? 1 : -1)).slice(0, 50); console.log((${print})(r))`
const wall = (script: string) =>
  time(() => {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })
    if (r.status !== 0 || (script !== '0' && r.stdout.split('\n').length < 50))
      throw new Error(r.stderr || r.stdout)
  })
console.log('\ncrashlab ls as a whole process (node start, load, open, list 50, print); median of', ROUNDS)
console.log(`  floor: node -e 0                 ${ms(wall('0'))}`)
console.log(`  JSONL index, 100 runs            ${ms(wall(jsonlChild(smallJsonl)))}`)
console.log(`  SQLite store, 100 runs           ${ms(wall(sqliteChild(smallDir)))}`)
console.log(`  SQLite store, 10,000 runs        ${ms(wall(sqliteChild(sqliteDir)))}`)
console.log(`  JSONL index, 10,000 runs         ${ms(wall(jsonlChild(join(jsonlDir, 'index.jsonl'))))}`)

// ---- capture overhead per LLM call ---------------------------------------------------------------
const provider = await startScriptedProvider({
  policy: () => ({ text: 'Your refund for A17 is on its way.' }),
})
const plain = new OpenAI({ baseURL: `${provider.url}/v1`, apiKey: 'sk-bench', maxRetries: 0 })
const wrapped = wrap(new OpenAI({ baseURL: `${provider.url}/v1`, apiKey: 'sk-bench', maxRetries: 0 }))
const messages = Array.from({ length: 10 }, (_, i) => ({
  role: (i % 2 ? 'assistant' : 'user') as 'user' | 'assistant',
  content: `message ${i}: my order A17 arrived broken, please refund it`,
}))
const call = (c: OpenAI) => c.chat.completions.create({ model: 'gpt-5-mini', messages })
const CALLS = 20
const captureDir = join(root, 'capture')
type Variant = { name: string; sample: () => Promise<{ calls: number; run: number }> }
const variants: Variant[] = [
  { name: 'no capture: plain client', sample: async () => loop(async () => void (await call(plain))) },
  {
    name: 'wrap(client), outside a capture',
    sample: async () => loop(async () => void (await call(wrapped))),
  },
  { name: 'capture, store: false (Session only)', sample: () => captured(false) },
  { name: 'capture into the store (journal, fsync)', sample: () => captured(captureDir) },
]
async function loop(fn: () => Promise<void>): Promise<{ calls: number; run: number }> {
  const t = performance.now()
  for (let i = 0; i < CALLS; i++) await fn()
  return { calls: (performance.now() - t) / CALLS, run: 0 }
}
async function captured(store: string | false): Promise<{ calls: number; run: number }> {
  const t = performance.now()
  const capture = await startCapture({ name: 'bench', input: 'Refund A17', store, config: false })
  const t1 = performance.now()
  for (let i = 0; i < CALLS; i++) await capture.run(() => call(wrapped))
  const t2 = performance.now()
  await capture.close({ output: 'done' })
  return { calls: (t2 - t1) / CALLS, run: t1 - t + (performance.now() - t2) }
}
const samples = new Map(variants.map((v) => [v.name, [] as Array<{ calls: number; run: number }>]))
for (const v of variants) await v.sample() // warm-up
for (let r = 0; r < ROUNDS; r++) {
  for (const v of r % 2 ? [...variants].reverse() : variants) samples.get(v.name)!.push(await v.sample())
}
await provider.close()
console.log(
  `\ncapture overhead, OpenAI SDK chat call (10 messages) to a loopback provider, ${CALLS} calls a run`,
)
const base = median(samples.get(variants[0]!.name)!.map((s) => s.calls))
for (const v of variants) {
  const xs = samples.get(v.name)!
  const perCall = median(xs.map((s) => s.calls))
  const run = median(xs.map((s) => s.run))
  console.log(
    `  ${v.name.padEnd(42)} ${ms(perCall)}/call (+${ms(perCall - base)})${run ? `  start + close of the run: ${ms(run)}` : ''}`,
  )
}
rmSync(root, { recursive: true, force: true })
