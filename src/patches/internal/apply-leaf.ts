import type { NormalizedRequest } from '../../case/schema/normalized.ts'
import type { LeafPatch } from '../patch-schema.ts'
import type { PatchScope } from '../text-edit-schema.ts'
import { applyInjectMessage, applyMessage, applyToolResult } from './apply-messages.ts'
import { applyModelParams, applyToolDescription, applyToolSchema } from './apply-tools-params.ts'
import { describeAnchor, editParts } from './edit-text.ts'

/**
 * Where a request sits in a run: its step, and the agent that sent it, when the caller knows.
 *
 * @example
 * const ctx: PatchContext = { step: step.index, agent: 'triage' }
 */
export interface PatchContext {
  /** The step's index in `run.steps`. */
  step?: number
  /** The agent that sent the request (multi-agent runs). */
  agent?: string
}

/** What one single patch did to a request. */
export type LeafOutcome =
  | { status: 'applied' }
  | { status: 'out_of_scope' }
  | { status: 'missing'; reason: string }

/** True when the request is in the patch's `when` (every condition given holds). */
export function inScope(
  when: PatchScope | undefined,
  request: NormalizedRequest,
  ctx: PatchContext,
): boolean {
  if (!when) return true
  if (when.agent !== undefined && ctx.agent !== when.agent) return false
  if (when.systemContains !== undefined) {
    const system = request.system.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n')
    if (!system.includes(when.systemContains)) return false
  }
  if (when.fromStep !== undefined && (ctx.step === undefined || ctx.step < when.fromStep)) return false
  if (when.toStep !== undefined && (ctx.step === undefined || ctx.step > when.toStep)) return false
  return true
}

/** Applies one single patch to `request` in place (the caller's own copy). */
export function applyLeaf(patch: LeafPatch, request: NormalizedRequest, ctx: PatchContext): LeafOutcome {
  if (!inScope(patch.when, request, ctx)) return { status: 'out_of_scope' }
  const reason = run(patch, request)
  return reason === null ? { status: 'applied' } : { status: 'missing', reason }
}

function run(patch: LeafPatch, request: NormalizedRequest): string | null {
  switch (patch.kind) {
    case 'system_prompt': {
      const system = editParts(request.system, patch)
      if (system === null) return `the system prompt does not contain ${describeAnchor(patch)}`
      request.system = system
      return null
    }
    case 'message':
      return applyMessage(request, patch)
    case 'inject_message':
      return applyInjectMessage(request, patch)
    case 'tool_result':
      return applyToolResult(request, patch)
    case 'tool_description':
      return applyToolDescription(request, patch)
    case 'tool_schema':
      return applyToolSchema(request, patch)
    case 'model_params':
      return applyModelParams(request, patch)
  }
}
