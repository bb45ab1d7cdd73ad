/**
 * The crash-test matrix against the same replays run by hand. A 10-step run (5 OpenAI SDK chat calls,
 * each followed by a pure `get_item` tool call: bench/crash/agent.ts) is recorded once against the
 * scripted provider with a `module` entry point, into a temp store; then, in one process and in
 * alternating rounds:
 *
 * (a) `runCrashMatrix(run, { faults, cwd })`: every fault at every step it fits, judged, nothing stored;
 * (b) by hand: the same cells as the loop a user would write, one `runAgent` replay Session per cell with
 *     `inject: faultInjection(fault, step)` and `allowUnused: true`, the entry function loaded once and
 *     the interceptor started once per round, as `runCrashMatrix` does; nothing judged;
 * (c) for reference, as many plain replays of the run, no fault;
 * (d) what `runCrashMatrix` costs before its first cell: the same call with `steps: []` (the config,
 *     the interceptor, the entry point's import through Vite's module runner), and that import alone.
 *
 * Goal (from the issue): a 10-step run × 12 faults costs ≤ 2× the same replays run by hand. A model fault
 * fits a model call and a tool fault a tool call, so 12 faults over 10 steps make 7 × 5 + 5 × 5 = 60
 * cells, not 120: the figures are per cell. The faults are the first seven of `ALL_MODEL_FAULTS` and every
 * tool fault. The SDK answers five of those model faults (a 500, a gateway page, a timeout, a reset, a cut
 * body) with its retry backoff, a timer of 375–500 ms, the same on both sides, which would make the
 * figures a measure of that timer: the bench sets the SDK's default retry delay to 0 (the retries still
 * happen, served from the recording). BACKOFF=1 keeps the SDK's own delay.
 *
 *   node bench/crash-matrix.bench.ts   (Node 22; ROUNDS=… (default 5); FAULTS=rate_limit,tool_throw,… a fault list; BACKOFF=1)
 */
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import OpenAI from 'openai'
import type { Run } from '../src/case/schema/run.ts'
import { runCrashMatrix } from '../src/crash/crash-matrix.ts'
import {
  ALL_MODEL_FAULTS,
  ALL_TOOL_FAULTS,
  type Fault,
  isModelFault,
  parseFaultList,
} from '../src/crash/faults.ts'
import { crashCells, faultInjection } from '../src/crash/inject.ts'
import { judgeVariant } from '../src/crash/judge.ts'
import { prepareAgentRun } from '../src/harness/prepare-agent-run.ts'
import { runAgent } from '../src/harness/run-agent.ts'
import { installInterceptor } from '../src/production-capture/install-interceptor.ts'
import { record } from '../src/production-capture/record.ts'
import { interceptHostsOf, loadEntry, storedChecks } from '../src/rerun/replay-module.ts'
import { openStore } from '../src/store/index.ts'
import { startScriptedProvider } from '../src/testing/index.ts'
import { itemsModel, lookUpItems } from './crash/agent.ts'
import { median } from './internal/measure.ts'

const ROUNDS = Number(process.env.ROUNDS ?? 5)
const AGENT_DIR = join(import.meta.dirname, 'crash')
const ENTRY = { kind: 'module', module: './agent.ts', export: 'lookUpItems' } as const
const FAULTS: Fault[] = process.env.FAULTS
  ? parseFaultList(process.env.FAULTS)
  : [...ALL_MODEL_FAULTS.slice(0, 7), ...ALL_TOOL_FAULTS]
const BACKOFF = process.env.BACKOFF === '1'
// The SDK's own delay before a retry it was given no `retry-after` for (0.5 s, doubling, minus up to 25 %
// jitter). The entry point that Vite's module runner loads imports the same `openai` module (a dependency
// is external to the runner), so this reaches the replayed agent too.
if (!BACKOFF)
  (
    OpenAI.prototype as unknown as { calculateDefaultRetryTimeoutMillis(): number }
  ).calculateDefaultRetryTimeoutMillis = () => 0

// Record once, against the scripted provider, which is closed before anything is replayed: a variant
// that reached the network would fail.
const provider = await startScriptedProvider({ policy: itemsModel })
const storeDir = mkdtempSync(join(os.tmpdir(), 'crashlab-crash-bench-'))
const store = await openStore({ dir: storeDir, config: false })
let run: Run
{
  const interceptor = installInterceptor({ hosts: [provider.url] })
  try {
    const recording = await record('catalogue-bot', lookUpItems, {
      input: { question: 'Are SKU-100 to SKU-104 in stock?', baseURL: `${provider.url}/v1` },
      entryPoint: ENTRY,
      config: false,
      store,
    })
    if (recording.error) throw recording.error
    if (!recording.stored) throw new Error('the recording was not stored')
    run = store.load(recording.stored.id)
  } finally {
    await interceptor.close()
  }
}
await provider.close()
const kinds = run.steps.map((s) => (s.type === 'tool' ? s.name : s.type))
if (kinds.join() !== 'llm,get_item,llm,get_item,llm,get_item,llm,get_item,llm,get_item')
  throw new Error(`the recorded run is not 5 × (model call, get_item): ${kinds.join(', ')}`)

const cells = crashCells(run, FAULTS)
const fn = await loadEntry(ENTRY, AGENT_DIR)

type Variant = { run: Run; error: unknown; injected: boolean }

/** (b) and (c): one replay Session per cell, as `runCrashMatrix` opens it; with the cell's fault or none. */
async function byHand(withFault: boolean): Promise<Variant[]> {
  const prepared = await prepareAgentRun({ cwd: AGENT_DIR, config: false, checks: storedChecks(run) })
  const interceptor = interceptHostsOf(run, {
    outsideSession: 'replay',
    allowHosts: prepared.config.allowHosts,
  })
  const variants: Variant[] = []
  try {
    for (const cell of cells) {
      const ended = await runAgent(
        {
          prepared,
          session: {
            mode: 'replay',
            recorded: run,
            allowUnused: true,
            inject: withFault ? faultInjection(cell.fault, cell.step) : undefined,
            onWarning: () => {},
          },
          input: run.input,
          entryPoint: ENTRY,
          metadata: { ...run.metadata },
          finishRule: 'replay',
        },
        fn,
      )
      variants.push({ run: ended.run, error: ended.error, injected: ended.session.injectedAt !== undefined })
    }
  } finally {
    await interceptor.close()
  }
  return variants
}

const CASES = {
  matrix: () => runCrashMatrix(run, { faults: FAULTS, cwd: AGENT_DIR, config: false }),
  byHand: () => byHand(true),
  plain: () => byHand(false),
  fixed: () => runCrashMatrix(run, { faults: FAULTS, steps: [], cwd: AGENT_DIR, config: false }),
  load: () => loadEntry(ENTRY, AGENT_DIR),
} as const
type CaseName = keyof typeof CASES
const times: Record<CaseName, number[]> = { matrix: [], byHand: [], plain: [], fixed: [], load: [] }
const results: Partial<Record<CaseName, unknown>> = {}

const names = Object.keys(CASES) as CaseName[]
// One warm-up round, then rounds in alternating order, so that a slow spell of a shared machine hits
// every case alike.
for (let round = -1; round < ROUNDS; round++) {
  for (const name of round % 2 === 0 ? [...names].reverse() : names) {
    const start = performance.now()
    results[name] = await CASES[name]()
    if (round >= 0) times[name].push(performance.now() - start)
  }
}
store.close()
rmSync(storeDir, { recursive: true, force: true })

// The measure is of crash tests only if the faults were injected and the agent came out of them the same
// way on both sides.
const matrix = results.matrix as Awaited<ReturnType<typeof CASES.matrix>>
const byHandRuns = results.byHand as Variant[]
const plainRuns = results.plain as Variant[]
if (matrix.cells.length !== cells.length || byHandRuns.length !== cells.length)
  throw new Error('a side ran a different number of cells')
if (matrix.network.requests.length + matrix.network.connections.length > 0)
  throw new Error(`the matrix reached the network: ${JSON.stringify(matrix.network)}`)
for (const [i, cell] of cells.entries()) {
  const variant = byHandRuns[i] as Variant
  const judged = judgeVariant(variant.run, cell.fault, variant)
  if (!variant.injected || judged.outcome !== matrix.cells[i]?.outcome)
    throw new Error(`cell ${i} (step ${cell.step}, ${cell.fault.kind}): by hand ${judged.outcome}`)
}
if (plainRuns.some((v) => v.error !== undefined || v.run.steps.length !== run.steps.length))
  throw new Error('a plain replay failed')

const tally = (outcome: string) => matrix.cells.filter((c) => c.outcome === outcome).length
const m = Object.fromEntries(names.map((n) => [n, median(times[n])])) as Record<CaseName, number>
const paired = (a: CaseName, b: CaseName) => median(times[a].map((t, i) => t / (times[b][i] as number)))
const modelFaults = FAULTS.filter(isModelFault).length
const modelSteps = run.steps.filter((s) => s.type === 'llm').length

const row = (name: string, ms: number, perCell = true) =>
  `  ${name.padEnd(52)}${ms.toFixed(0).padStart(7)} ms${perCell ? `   ${(ms / cells.length).toFixed(2).padStart(7)} ms a cell` : ''}`
console.log('crashlab crash-matrix benchmark: runCrashMatrix against the same replays run by hand')
console.log(
  `  node ${process.version}, ${os.cpus().length} CPUs, ${new Date().toISOString()}, load average ` +
    `${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; median of ${ROUNDS} rounds; the SDK's retry backoff ${BACKOFF ? 'kept' : 'set to 0'}`,
)
console.log(
  `  run: ${run.steps.length} steps (${modelSteps} model calls, ${run.steps.length - modelSteps} tool calls); ` +
    `faults: ${FAULTS.length} (${modelFaults} model, ${FAULTS.length - modelFaults} tool)`,
)
console.log(
  `  cells: ${cells.length}, not ${run.steps.length} × ${FAULTS.length} = ${run.steps.length * FAULTS.length}: ` +
    'a model fault fits a model call, a tool fault a tool call',
)
console.log(
  `  outcomes: ${tally('survived')} survived, ${tally('failed')} failed, ${tally('diverged')} diverged`,
)
console.log('')
console.log(row('(a) runCrashMatrix, all cells', m.matrix))
console.log(row('(b) by hand: runAgent + faultInjection per cell', m.byHand))
console.log(row('(c) plain replays, no fault, as many', m.plain))
console.log(row('(d) runCrashMatrix before its first cell (steps: [])', m.fixed, false))
console.log(row('    of which the entry point, loaded through Vite', m.load, false))
console.log(row('(a) − (d): the cells of runCrashMatrix', m.matrix - m.fixed))
const ratio = m.matrix / m.byHand
console.log('')
console.log(
  `  (a)/(b) ${ratio.toFixed(2)}× (paired ${paired('matrix', 'byHand').toFixed(2)}×), goal ≤ 2×: ${ratio <= 2 ? 'met' : 'NOT MET'}`,
)
console.log(
  `  (b)/(c) ${(m.byHand / m.plain).toFixed(2)}× (paired ${paired('byHand', 'plain').toFixed(2)}×): a fault's variant against a plain replay`,
)
console.log(
  `  (a) − (d) − (b): ${((m.matrix - m.fixed - m.byHand) / cells.length).toFixed(2)} ms a cell (judging, and the rest)`,
)
