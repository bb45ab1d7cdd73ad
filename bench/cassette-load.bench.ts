/**
 * Cassette load and write costs against the floors measured in the same process:
 *
 *   node bench/cassette-load.bench.ts          (Node 22: `npm run bench:cassette`)
 *
 * Builds a realistic 1,000-step run (~5 MB as a cassette: LLM steps whose requests carry the growing
 * conversation, tool steps, some streamed responses kept as SSE chunks), writes it to a temp file, then
 * times each operation after a warm-up and prints medians (see `measure` for how). The goal is load-and-validate at most 3× the floor,
 * `JSON.parse` of the same bytes.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { z } from 'zod'
import { writeFileAtomic } from '../src/case/atomic-write.ts'
import { loadCassette } from '../src/case/cassette-load.ts'
import { parseCassette } from '../src/case/cassette-parse.ts'
import { toPlainJson } from '../src/case/cassette-plain-json.ts'
import { serializeCassette } from '../src/case/cassette-serialize.ts'
import { writeCassette } from '../src/case/cassette-write.ts'
import { buildRealisticRun, cassetteOf } from '../src/case/internal/test-runs.ts'
import { CassetteSchema } from '../src/case/schema/cassette.ts'
import { redactDocument } from '../src/redact/index.ts'
import { measure } from './internal/measure.ts'

const WARMUP = 5
const ROUNDS = Number(process.env.ROUNDS ?? 25)
const TIMING = { warmup: WARMUP, rounds: ROUNDS }

function table(title: string, results: Map<string, number>, floor: string): void {
  const base = results.get(floor)!
  console.log(`\n${title}`)
  for (const [name, ms] of results) {
    const ratio = name === floor ? 'floor' : `${(ms / base).toFixed(2)}×`
    console.log(`  ${name.padEnd(52)} ${ms.toFixed(2).padStart(8)} ms   ${ratio}`)
  }
}

const dir = mkdtempSync(join(tmpdir(), 'crashlab-bench-'))
try {
  const run = buildRealisticRun({ steps: 1000, seed: 1, words: 12 })
  const path = join(dir, 'bench.cassette.json')
  writeCassette(path, run)
  const bytes = readFileSync(path)
  const text = bytes.toString('utf8')
  const parsed = JSON.parse(text)
  // The same cassette without its seal (edited by hand, or written by another crashlab version): a load
  // of it runs the schema. The sealed file above skips it (docs/cassette.md, "The seal").
  const { seal: _seal, ...unsealedCassette } = parsed
  const unsealed = serializeCassette(unsealedCassette)
  const unsealedBytes = Buffer.from(unsealed)
  const compiled = z.compile(CassetteSchema)
  const counts = { llm: 0, tool: 0, http: 0, sse: 0 }
  for (const s of run.steps) {
    counts[s.type]++
    if (s.type === 'llm' && s.response?.wire.chunks) counts.sse++
  }

  console.log('crashlab cassette benchmark')
  console.log(
    `  node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}), ${new Date().toISOString()}`,
  )
  console.log(
    `  cassette: ${run.steps.length} steps (${counts.llm} llm, ${counts.tool} tool, ${counts.http} http; ` +
      `${counts.sse} streamed), ${(bytes.length / 1e6).toFixed(2)} MB; median of ${ROUNDS} rounds after ${WARMUP} warm-up`,
  )

  const load = measure(
    [
      { name: 'JSON.parse(readFileSync(path, "utf8"))', fn: () => JSON.parse(readFileSync(path, 'utf8')) },
      { name: 'loadCassette(path)', fn: () => loadCassette(path) },
    ],
    TIMING,
  )
  table(
    'load from disk (stat, read, UTF-8 check, parse, validate)',
    load,
    'JSON.parse(readFileSync(path, "utf8"))',
  )

  const memory = measure(
    [
      { name: 'JSON.parse(text)', fn: () => JSON.parse(text) },
      { name: 'JSON.parse(bytes.toString("utf8"))', fn: () => JSON.parse(bytes.toString('utf8')) },
      { name: 'parseCassette(text)', fn: () => parseCassette(text) },
      { name: 'parseCassette(bytes)', fn: () => parseCassette(bytes) },
      { name: 'parseCassette(unsealed text)', fn: () => parseCassette(unsealed) },
      { name: 'parseCassette(unsealed bytes)', fn: () => parseCassette(unsealedBytes) },
      { name: 'CassetteSchema.safeParse(doc) alone', fn: () => CassetteSchema.safeParse(parsed) },
      { name: 'z.compile(CassetteSchema).safeParse(doc) (not used)', fn: () => compiled.safeParse(parsed) },
    ],
    TIMING,
  )
  table('load from memory', memory, 'JSON.parse(text)')

  const cassette = parseCassette(bytes)
  const envelope = cassetteOf(run)
  const scratch = join(dir, 'scratch.cassette.json')
  const write = measure(
    [
      { name: 'JSON.stringify(cassette, null, 2)', fn: () => JSON.stringify(cassette, null, 2) },
      { name: '  toPlainJson(envelope)', fn: () => toPlainJson(envelope) },
      { name: '  redactDocument(envelope)', fn: () => redactDocument(envelope) },
      { name: '  CassetteSchema.safeParse(envelope)', fn: () => CassetteSchema.safeParse(envelope) },
      { name: '  serializeCassette(cassette)', fn: () => serializeCassette(cassette) },
      { name: '  writeFileAtomic(path, text) (with fsync)', fn: () => writeFileAtomic(scratch, text) },
      { name: 'writeCassette(path, run): all of the above', fn: () => writeCassette(path, run) },
    ],
    { warmup: WARMUP, rounds: Math.min(ROUNDS, 11) },
  )
  table(
    'write (writeCassette: copy, redact, validate, serialize, atomic write + fsync)',
    write,
    'JSON.stringify(cassette, null, 2)',
  )

  const ratios = [
    ['from disk', load.get('loadCassette(path)')! / load.get('JSON.parse(readFileSync(path, "utf8"))')!],
    ['from bytes', memory.get('parseCassette(bytes)')! / memory.get('JSON.parse(bytes.toString("utf8"))')!],
    ['from text', memory.get('parseCassette(text)')! / memory.get('JSON.parse(text)')!],
    [
      'unsealed bytes',
      memory.get('parseCassette(unsealed bytes)')! / memory.get('JSON.parse(bytes.toString("utf8"))')!,
    ],
    ['unsealed text', memory.get('parseCassette(unsealed text)')! / memory.get('JSON.parse(text)')!],
  ] as const
  console.log(
    '\nload (sealed: the schema skipped; unsealed: validated) / JSON.parse of the same input (goal ≤ 3×):',
  )
  for (const [what, r] of ratios)
    console.log(`  ${what.padEnd(14)} ${r.toFixed(2)}× ${r <= 3 ? 'OK' : 'OVER'}`)
} finally {
  rmSync(dir, { recursive: true, force: true })
}
