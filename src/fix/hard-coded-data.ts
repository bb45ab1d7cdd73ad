import type { Run } from '../case/schema/run.ts'
import type { Patch } from '../patches/patch-schema.ts'

/** Keys of a patch that name what is already there (a line to find, a tool), not text the patch adds. */
const NAMING_KEYS = new Set([
  'kind',
  'op',
  'tool',
  'callId',
  'find',
  'after',
  'before',
  'line',
  'contains',
  'when',
  'role',
])
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
/** An id: letters and digits together, no spaces (`A17`, `ord_123`, `rf-9`). */
const ID = /^(?=.*\d)(?=.*[A-Za-z])[A-Za-z0-9_.:-]{2,64}$/

/**
 * The values of a run's data that a patch hard-codes: ids (`A17`), emails and numbers of 10 or more
 * found in the run's tool-call arguments or results and in the text the patch adds (its `text`,
 * `replace`, `parameters`, …; not the lines or tools it names to find its target). A fix that carries
 * them fixes this run only, so `proposeFixes` rejects it. Empty when the patch is general.
 *
 * @example
 * hardCodedData({ kind: 'system_prompt', op: 'append', text: 'Refund A17 at most 49.' }, run) // ['A17', '49']
 * hardCodedData({ kind: 'system_prompt', op: 'append', text: 'Never refund more than the order total.' }, run) // []
 */
export function hardCodedData(patch: Patch, run: Pick<Run, 'steps'>): string[] {
  const values = new Set<string>()
  for (const step of run.steps) {
    if (step.type !== 'tool') continue
    collectData(step.args, values)
    collectData(step.result, values)
  }
  const added: string[] = []
  collectAdded(patch, added)
  const text = added.join('\n')
  return [...values].filter((value) => {
    const escaped = value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    return new RegExp(`(?<![A-Za-z0-9_])${escaped}(?![A-Za-z0-9_]|\\.\\d)`).test(text)
  })
}

function collectData(value: unknown, into: Set<string>): void {
  if (typeof value === 'number') {
    if (Number.isFinite(value) && Math.abs(value) >= 10) into.add(String(value))
  } else if (typeof value === 'string') {
    const s = value.trim()
    if (EMAIL.test(s) || ID.test(s)) into.add(s)
    else if (/^-?\d+(\.\d+)?$/.test(s) && Math.abs(Number(s)) >= 10) into.add(s)
  } else if (Array.isArray(value)) {
    for (const v of value) collectData(v, into)
  } else if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) collectData(v, into)
  }
}

function collectAdded(value: unknown, into: string[], key?: string): void {
  if (key !== undefined && NAMING_KEYS.has(key)) return
  if (typeof value === 'string') into.push(value)
  else if (typeof value === 'number') into.push(String(value))
  else if (Array.isArray(value)) for (const v of value) collectAdded(v, into)
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) collectAdded(v, into, k)
  }
}
