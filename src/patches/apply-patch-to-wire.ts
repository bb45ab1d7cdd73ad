import type { NormalizedRequest } from '../case/schema/normalized.ts'
import type { WireRequest } from '../case/schema/step.ts'
import type { ProviderAdapter } from '../providers/types.ts'
import { type ApplyPatchOptions, applyPatch } from './apply-patch.ts'
import type { Patch } from './patch-schema.ts'

/**
 * A patched wire request, the normalized request it carries, and what `applyPatch` said.
 *
 * @example
 * const { wire: sent, changed } = applyPatchToWire(patch, wire, adapter)
 */
export interface ApplyPatchToWireResult {
  /** The request to send: `wire` itself when nothing changed, else the adapter's rewrite of it. */
  wire: WireRequest
  request: NormalizedRequest
  changed: boolean
  missing: string[]
}

/**
 * Patches a wire request of any API: the adapter normalizes it, the patch applies, and the adapter
 * writes the result back in its own wire format, keeping what the normalized shape does not describe
 * (headers, provider options, unknown fields). A request the patch leaves alone is returned as is.
 *
 * @example
 * const adapter = findAdapter(wire)!
 * const { wire: patched } = applyPatchToWire({ kind: 'model_params', params: { temperature: 0 } }, wire, adapter)
 */
export function applyPatchToWire(
  patch: Patch,
  wire: WireRequest,
  adapter: ProviderAdapter,
  options: ApplyPatchOptions = {},
): ApplyPatchToWireResult {
  const normalized = adapter.normalizeRequest(wire)
  const { request, changed, missing } = applyPatch(patch, normalized, options)
  if (!changed) return { wire, request, changed, missing }
  return { wire: adapter.writeRequest(request, wire), request, changed, missing }
}
