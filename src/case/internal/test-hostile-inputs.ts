import { buildSampleRun } from '../agentcase/internal/test-sample-run.ts'
import { serializeAgentCase } from '../agentcase/serialize-agent-case.ts'
import { toAgentCase } from '../agentcase/to-agent-case.ts'
import { serializeCassette } from '../cassette-serialize.ts'
import { buildRealisticRun, cassetteOf } from './test-runs.ts'

/**
 * Hostile inputs for both loaders (not shipped: `test-*` files are excluded from the build): valid
 * cassettes and AgentCase files with, at a random place, a deep nest (up to 6,000 levels), a wide
 * object or array (up to 300,000 entries), a long key or value (up to 5 million characters), a random
 * JSON value, a removed key, or a cut. Deterministic: the same seed gives the same cases, so a test can
 * take a sample of them to the CLI.
 */

export type HostileShape = 'deep' | 'wide' | 'long' | 'swap' | 'remove' | 'cut'

export interface HostileCase {
  index: number
  format: 'cassette' | 'agentcase'
  shape: HostileShape
  /** The document as text (what a file would hold). */
  text: string
  /** The parsed document when it is one (every shape but `cut`), for `validateAgentCase`. */
  value?: unknown
}

const DEEP = '\u0000deep\u0000'
const SHAPES: readonly HostileShape[] = ['deep', 'wide', 'long', 'swap', 'remove', 'cut']

/** mulberry32: small and good enough to vary test data. */
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

const cassetteSeed = JSON.parse(
  serializeCassette(cassetteOf(buildRealisticRun({ steps: 6, seed: 3, words: 6 }))),
) as unknown
const agentCaseSeed = JSON.parse(serializeAgentCase(toAgentCase(buildSampleRun()))) as unknown

/** Every container of a document with its path, so a mutation can land anywhere. */
function containers(root: unknown): object[] {
  const out: object[] = []
  const stack: unknown[] = [root]
  while (stack.length) {
    const v = stack.pop()
    if (typeof v !== 'object' || v === null) continue
    out.push(v)
    for (const x of Array.isArray(v) ? v : Object.values(v)) stack.push(x)
  }
  return out
}

/**
 * The hostile cases 0 … count-1, one by one (large ones are built only when reached).
 *
 * @example
 * for (const c of hostileCases(10_000, 7)) parseCassette(c.text)
 */
export function* hostileCases(count: number, seed: number): Generator<HostileCase> {
  for (let index = 0; index < count; index++) yield hostileCase(index, seed)
}

/**
 * Case number `index` of the series `seed`, on its own: each case has its own generator, so a test can
 * take any sample of the series without building the rest.
 *
 * @example
 * hostileCase(45, 7).shape
 */
export function hostileCase(index: number, seed: number): HostileCase {
  const rand = prng(Math.imul(seed, 0x9e3779b1) ^ index)
  const int = (max: number) => Math.floor(rand() * max)
  const scalar = (): unknown => [0, -1.5, 'x', '', true, null, 'sk', 1e300][int(8)]
  {
    const format = rand() < 0.5 ? 'cassette' : 'agentcase'
    const shape = SHAPES[int(SHAPES.length)]!
    const doc = structuredClone(format === 'cassette' ? cassetteSeed : agentCaseSeed) as Record<
      string,
      unknown
    >
    const all = containers(doc)
    const target = all[int(all.length)] as Record<string | number, unknown>
    const key: string | number = Array.isArray(target) ? int(target.length + 1) : `k${int(5)}`
    let value: unknown
    let nested = ''
    if (shape === 'deep') {
      // Mostly over the 1,000-level bound, some under it; built as text (JSON.stringify is recursive).
      const depth = rand() < 0.8 ? 1000 + int(5000) : 1 + int(990)
      const [open, close] = rand() < 0.5 ? ['[', ']'] : ['{"a":', '}']
      nested = `${open.repeat(depth)}${JSON.stringify(scalar())}${close.repeat(depth)}`
      value = DEEP
    } else if (shape === 'wide') {
      // Mostly small; one in fifty over the 100,000-entry bound of a container.
      const n = rand() < 0.02 ? 100_001 + int(200_000) : int(3000)
      if (rand() < 0.5) value = Array.from({ length: n }, scalar)
      else {
        const o: Record<string, unknown> = {}
        for (let i = 0; i < n; i++) o[`h${i}`] = rand() < 0.5 ? 'v' : i
        value = o
      }
    } else if (shape === 'long') {
      const n = rand() < 0.02 ? 5_000_000 : int(20_000)
      const long = 'k'.repeat(n)
      if (rand() < 0.5 && !Array.isArray(target)) {
        target[long] = scalar()
        value = undefined
      } else value = long
    } else if (shape === 'swap') {
      value = [{}, [], 'x', 7, null, { format: 'x' }, [[[]]], { '': {} }][int(8)]
    }
    if (shape === 'remove' && !Array.isArray(target)) {
      const keys = Object.keys(target)
      if (keys.length) delete target[keys[int(keys.length)]!]
    } else if (shape !== 'cut' && value !== undefined) {
      if (Array.isArray(target)) target.splice(key as number, rand() < 0.5 ? 1 : 0, value)
      else {
        const keys = Object.keys(target)
        target[keys.length && rand() < 0.6 ? keys[int(keys.length)]! : key] = value
      }
    }
    let text = JSON.stringify(doc)
    if (nested) text = text.replace(JSON.stringify(DEEP), nested)
    if (shape === 'cut') text = text.slice(0, int(text.length))
    return shape === 'cut'
      ? { index, format, shape, text }
      : { index, format, shape, text, value: nested ? JSON.parse(text) : doc }
  }
}
