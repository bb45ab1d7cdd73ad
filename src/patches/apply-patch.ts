import { isDeepStrictEqual } from 'node:util'
import type { NormalizedRequest } from '../case/schema/normalized.ts'
import { leaves } from './define-patch.ts'
import { applyLeaf, type PatchContext } from './internal/apply-leaf.ts'
import { targetError } from './internal/patch-errors.ts'
import type { Patch } from './patch-schema.ts'

export type { PatchContext }

/**
 * Options of `applyPatch`: where the request sits, and whether a missing target is an error.
 *
 * @example
 * applyPatch(patch, request, { step: 4, agent: 'triage', strict: true })
 */
export interface ApplyPatchOptions extends PatchContext {
  /** Throw `E_PATCH_TARGET` when a patch in scope finds no target (a line, a tool, a message). */
  strict?: boolean
}

/**
 * The patched request (a new object), whether it differs, and each in-scope target that was not there.
 *
 * @example
 * const { request: patched, changed, missing } = applyPatch(patch, request)
 */
export interface ApplyPatchResult {
  request: NormalizedRequest
  changed: boolean
  /** One sentence per single patch whose target the request lacks, e.g. `no tool named "refund"`. */
  missing: string[]
}

/**
 * Applies a patch to a normalized request. Pure: `request` is never changed. A composition applies its
 * patches in order, each to the result of the one before. A patch out of its `when` scope, or whose
 * target the request lacks, leaves the request alone (`changed: false`, the reason in `missing`); with
 * `strict`, a missing target throws `E_PATCH_TARGET` instead.
 *
 * @example
 * const { request: patched, changed } = applyPatch(
 *   { kind: 'system_prompt', op: 'append', text: 'Never refund more than the order total.' },
 *   step.request.normalized,
 *   { step: step.index },
 * )
 */
export function applyPatch(
  patch: Patch,
  request: NormalizedRequest,
  options: ApplyPatchOptions = {},
): ApplyPatchResult {
  const next = structuredClone(request)
  const missing: string[] = []
  for (const leaf of leaves(patch)) {
    const outcome = applyLeaf(leaf, next, options)
    if (outcome.status === 'missing') missing.push(`${leaf.kind}: ${outcome.reason}`)
  }
  if (options.strict && missing.length > 0) {
    const where = options.step === undefined ? 'the request' : `the request of step ${options.step}`
    const hint =
      'Copy the target (line, tool name, message) from `crashlab show`, or scope the patch with `when`.'
    throw targetError(where, missing, hint, where)
  }
  return { request: next, changed: !isDeepStrictEqual(next, request), missing }
}
