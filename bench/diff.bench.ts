/**
 * The layered diff against the floor measured in the same process: Node's `util.isDeepStrictEqual` of
 * the same two documents (a deep equality with no paths, no modes and no ignore list).
 *
 *   node bench/diff.bench.ts          (Node 22; ROUNDS=… for more samples)
 *
 * Builds a realistic 1,000-step run (~2,000 AgentCase events, ~5 MB canonical), parses its AgentCase
 * text twice so that the two documents share no object (an identity shortcut would otherwise skip the
 * whole walk), then times each comparison: warm-up calls, then consecutive samples per case in two
 * passes in opposite orders; the figure is the median. Goal: at most 3× the floor.
 */
import { cpus } from 'node:os'
import { isDeepStrictEqual } from 'node:util'
import { serializeAgentCase } from '../src/case/agentcase/serialize-agent-case.ts'
import { toAgentCase } from '../src/case/agentcase/to-agent-case.ts'
import { buildRealisticRun } from '../src/case/internal/test-runs.ts'
import { compare } from '../src/diff/compare.ts'
import { compareAgentCases } from '../src/diff/compare-agent-cases.ts'
import { trajectoryOf } from '../src/diff/trajectory-of.ts'
import { type Case, measure } from './internal/measure.ts'

const WARMUP = 5
const ROUNDS = Number(process.env.ROUNDS ?? 25)

const text = serializeAgentCase(toAgentCase(buildRealisticRun({ steps: 1000, seed: 1 })))
const a = JSON.parse(text)
const b = JSON.parse(text)
// A copy with one changed tool argument near the end: the walk must still visit everything.
const changed = JSON.parse(text)
const last = changed.events.findLastIndex((e: { event_type: string }) => e.event_type === 'tool.call')
changed.events[last].payload.arguments = { ...changed.events[last].payload.arguments, amount: 490 }

const check = (ok: boolean, what: string) => {
  if (!ok) throw new Error(`bench setup: ${what}`)
}
check(isDeepStrictEqual(a, b) && compare(a, b).equal, 'the two copies must be equal')
check(compareAgentCases(a, changed).differences.length === 1, 'the changed copy must differ once')

const FLOOR = 'floor: isDeepStrictEqual(a, b)'
const cases: Case[] = [
  { name: FLOOR, fn: () => isDeepStrictEqual(a, b) },
  { name: "compare(a, b, { mode: 'exact' })", fn: () => compare(a, b, { mode: 'exact' }) },
  { name: "compare(a, b, { mode: 'structural' })", fn: () => compare(a, b, { mode: 'structural' }) },
  { name: "compare(a, b, { mode: 'normalized' })", fn: () => compare(a, b, { mode: 'normalized' }) },
  { name: 'compareAgentCases(a, b) (ignore list, normalized)', fn: () => compareAgentCases(a, b) },
  { name: 'compareAgentCases(a, changed) (one difference)', fn: () => compareAgentCases(a, changed) },
  {
    name: 'trajectoryOf both + compare (normalized)',
    fn: () => compare(trajectoryOf(a), trajectoryOf(b), { mode: 'normalized' }),
  },
]

console.log('crashlab diff benchmark: two equal copies of a 1,000-step AgentCase')
console.log(
  `  node ${process.version}, ${cpus().length} CPUs, ${new Date().toISOString()}; ` +
    `${(Buffer.byteLength(text) / 1e6).toFixed(2)} MB, ${a.events.length} events; median of ${ROUNDS} samples`,
)
console.log('')
const medians = measure(cases, { warmup: WARMUP, rounds: ROUNDS })
const floor = medians.get(FLOOR)!
for (const c of cases) {
  const ms = medians.get(c.name)!
  console.log(`  ${c.name.padEnd(52)} ${ms.toFixed(1).padStart(7)} ms  ${(ms / floor).toFixed(2)}×`)
}
