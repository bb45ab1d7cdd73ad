/**
 * Typed patches: serializable, composable changes to a normalized LLM request, applied by forks and
 * proposed by fixes, written back in each API's wire format through the provider adapters.
 */
export {
  type ApplyPatchOptions,
  type ApplyPatchResult,
  applyPatch,
  type PatchContext,
} from './apply-patch.ts'
export { type ApplyPatchToWireResult, applyPatchToWire } from './apply-patch-to-wire.ts'
export { type CheckTargetOptions, checkTarget, type TargetCheck } from './check-target.ts'
export { type Composable, compose, definePatch, leaves, type PatchMethods } from './define-patch.ts'
export { parsePatch, serializePatch } from './parse-patch.ts'
export {
  injectMessagePatch,
  messagePatch,
  modelParamPatch,
  type PatchFields,
  systemPromptPatch,
  toolDescriptionPatch,
  toolResultPatch,
  toolSchemaPatch,
} from './patch-builders.ts'
export { isTestOnlyPatch, PATCH_KINDS, type PatchKindInfo } from './patch-kinds.ts'
export {
  type ComposePatch,
  ComposePatchSchema,
  type InjectMessagePatch,
  InjectMessagePatchSchema,
  type LeafPatch,
  LeafPatchSchema,
  type MessagePatch,
  MessagePatchSchema,
  type ModelParamPatch,
  ModelParamPatchSchema,
  type Patch,
  type PatchKind,
  PatchSchema,
  type SystemPromptPatch,
  SystemPromptPatchSchema,
  type ToolDescriptionPatch,
  ToolDescriptionPatchSchema,
  type ToolResultPatch,
  ToolResultPatchSchema,
  type ToolSchemaPatch,
  ToolSchemaPatchSchema,
} from './patch-schema.ts'
export { type RenderPatchDiffOptions, renderPatchDiff } from './render-patch-diff.ts'
export { type PatchScope, PatchScopeSchema, TEXT_EDIT_OPS } from './text-edit-schema.ts'
