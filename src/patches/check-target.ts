import { isDeepStrictEqual } from 'node:util'
import type { NormalizedRequest } from '../case/schema/normalized.ts'
import type { Run } from '../case/schema/run.ts'
import type { CrashlabError } from '../errors.ts'
import { leaves } from './define-patch.ts'
import { applyLeaf } from './internal/apply-leaf.ts'
import { targetError } from './internal/patch-errors.ts'
import type { Patch } from './patch-schema.ts'

/**
 * Options of `checkTarget`.
 *
 * @example
 * checkTarget(patch, run, { agent: 'triage', fromStep: 4 })
 */
export interface CheckTargetOptions {
  /** The agent every request of the run came from, for `when.agent`; the run's name when left out. */
  agent?: string
  /** Only LLM steps from this index on count (a fork's step). */
  fromStep?: number
}

/**
 * Whether a patch finds its target in a run, and the LLM steps whose request it changes.
 *
 * @example
 * const check: TargetCheck = checkTarget(patch, run)
 * if (!check.ok) console.error(check.error.message)
 */
export type TargetCheck = { ok: true; steps: number[] } | { ok: false; steps: number[]; error: CrashlabError }

/**
 * Says whether a patch's target exists in a run's LLM requests: every single patch of it must be in
 * scope and find its target (a line, a tool, a message) in at least one request. A fix proposal is kept
 * only when it does. When it does not, `error` is an `E_PATCH_TARGET` error naming what is missing.
 *
 * @example
 * const check = checkTarget(patch, run)
 * if (!check.ok) throw check.error
 * console.log(`the patch changes steps ${check.steps.join(', ')}`)
 */
export function checkTarget(
  patch: Patch,
  run: Pick<Run, 'id' | 'name' | 'steps'>,
  options: CheckTargetOptions = {},
): TargetCheck {
  const requests: Array<{ step: number; request: NormalizedRequest }> = []
  for (const step of run.steps) {
    if (step.type !== 'llm' || !step.request.normalized) continue
    if (options.fromStep !== undefined && step.index < options.fromStep) continue
    requests.push({ step: step.index, request: step.request.normalized })
  }
  const agent = options.agent ?? run.name
  const parts = leaves(patch)
  const found = parts.map(() => false)
  const reasons = parts.map(() => new Set<string>())
  const steps: number[] = []
  for (const { step, request } of requests) {
    // The patches of a composition run in order on one copy: a later one may target what an earlier added.
    const copy = structuredClone(request)
    for (const [i, leaf] of parts.entries()) {
      const outcome = applyLeaf(leaf, copy, { step, agent })
      if (outcome.status === 'applied') found[i] = true
      else if (outcome.status === 'missing') reasons[i]!.add(outcome.reason)
    }
    if (!isDeepStrictEqual(copy, request)) steps.push(step)
  }
  const problems = parts.flatMap((leaf, i) => {
    if (found[i] || requests.length === 0) return []
    const label = patch.kind === 'compose' ? `patch ${i + 1} (${leaf.kind})` : leaf.kind
    const why = [...reasons[i]!].slice(0, 3).join('; ') || 'no LLM request of the run is in its `when` scope'
    return [`${label}: ${why}`]
  })
  if (requests.length === 0) problems.push('the run has no LLM request with a normalized form to patch')
  if (problems.length === 0) return { ok: true, steps }
  const next = `Look at the requests with \`crashlab show ${run.id}\` and copy the line, tool or message the patch names.`
  const error = targetError(`run ${run.id}`, problems, next, run.id)
  return { ok: false, steps, error }
}
