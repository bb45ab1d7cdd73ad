import { CrashlabError } from '../../errors.ts'
import type { Oracle } from './types.ts'

/**
 * The process-wide table of registered oracles, by agent name. It lives on `globalThis` under a registered
 * symbol so that two copies of crashlab loaded in one process (the package and its source, or two versions
 * in a monorepo) still share one table: an oracle registered through one is seen by the other.
 */

interface RegistryState {
  byAgent: Map<string, Oracle[]>
  /** Default names count per agent, over the whole process, so that they never repeat. */
  counters: Map<string, number>
}

const KEY = Symbol.for('crashlab.oracles')

function state(): RegistryState {
  const holder = globalThis as { [KEY]?: RegistryState }
  holder[KEY] ??= { byAgent: new Map(), counters: new Map() }
  return holder[KEY]
}

/**
 * The next default name for an unnamed oracle of `agent`: `refund-bot#1`, `refund-bot#2`, …
 *
 * @example
 * nextDefaultName('refund-bot') // 'refund-bot#1'
 */
export function nextDefaultName(agent: string): string {
  const { counters } = state()
  const n = (counters.get(agent) ?? 0) + 1
  counters.set(agent, n)
  return `${agent}#${n}`
}

/**
 * Adds `oracle` to `agent`'s list and returns the function that removes exactly this registration.
 * Names are unique per agent, since results are keyed by name in reports and diffs: registering the same
 * function (or one with the same source text) under its name again replaces it (a re-run module), a
 * different function is an error.
 *
 * @example
 * const off = addOracle('refund-bot', { name: 'no-refund', fn: () => true })
 * off()
 */
export function addOracle(agent: string, oracle: Oracle): () => void {
  const { byAgent } = state()
  const list = byAgent.get(agent) ?? []
  const at = list.findIndex((o) => o.name === oracle.name)
  // The same function, or the same source text: a module loaded again (a replay or fork loads the entry
  // point's module in a fresh module runner, beside the copy a test may have imported).
  if (at >= 0 && list[at]!.fn !== oracle.fn && String(list[at]!.fn) !== String(oracle.fn)) {
    throw new CrashlabError(
      'E_ORACLE_DUPLICATE',
      `agent "${agent}" already has an oracle named "${oracle.name}": give this one another name with check('${agent}', fn, { name: '…' })`,
      { subject: `${agent}/${oracle.name}` },
    )
  }
  // A fresh object per registration: the unregister function compares identity, so an old unregister
  // function never removes a newer registration of the same name.
  const entry: Oracle = { name: oracle.name, fn: oracle.fn }
  if (at >= 0) list[at] = entry
  else list.push(entry)
  byAgent.set(agent, list)
  return () => {
    const current = byAgent.get(agent)
    const i = current?.indexOf(entry) ?? -1
    if (i < 0) return
    current!.splice(i, 1)
    if (current!.length === 0) byAgent.delete(agent)
  }
}

/**
 * The oracles registered for `agent`, in registration order (a copy).
 *
 * @example
 * registeredOracles('refund-bot').map((o) => o.name) // ['refundNotAboveTotal']
 */
export function registeredOracles(agent: string): Oracle[] {
  return [...(state().byAgent.get(agent) ?? [])]
}

/**
 * Forgets the oracles of `agent`, or of every agent; default-name counters restart too.
 *
 * @example
 * afterEach(() => clearOracles())
 */
export function clearOracles(agent?: string): void {
  const s = state()
  if (agent === undefined) {
    s.byAgent.clear()
    s.counters.clear()
  } else {
    s.byAgent.delete(agent)
    s.counters.delete(agent)
  }
}
