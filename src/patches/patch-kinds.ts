import { leaves } from './define-patch.ts'
import type { LeafPatch, Patch } from './patch-schema.ts'

/**
 * What crashlab knows about a patch kind.
 *
 * @example
 * const info: PatchKindInfo = PATCH_KINDS.tool_result // { testOnly: true, … }
 */
export interface PatchKindInfo {
  /** What the kind changes, for listings and prompts. */
  summary: string
  /** The kind changes evidence (what a tool returned), not the agent: fine in a test, never in a fix. */
  testOnly: boolean
}

/**
 * Every single patch kind and what it is. `tool_result` is test-only: a counterfactual answer shows
 * how the agent copes with a result, but shipping it would fix nothing, so a fix proposal never uses it.
 *
 * @example
 * Object.entries(PATCH_KINDS).filter(([, k]) => !k.testOnly).map(([kind]) => kind) // the kinds a fix may use
 */
export const PATCH_KINDS: Readonly<Record<LeafPatch['kind'], PatchKindInfo>> = {
  system_prompt: {
    summary: 'the system prompt: replace, append, prepend, insert, a line, substitute',
    testOnly: false,
  },
  message: { summary: 'a message already in the conversation: replace, substitute, delete', testOnly: false },
  inject_message: { summary: 'a new user or assistant message', testOnly: false },
  tool_result: { summary: 'a counterfactual tool result or error', testOnly: true },
  tool_description: { summary: "a tool's description, with the system prompt's edits", testOnly: false },
  tool_schema: { summary: "a tool's input schema: replace, or a JSON Merge Patch", testOnly: false },
  model_params: { summary: 'the model and its sampling parameters', testOnly: false },
}

/**
 * True when a patch (or any patch of a composition) is test-only. A fix proposal that is test-only must
 * be dropped: it would change what the tools said, not what the agent does.
 *
 * @example
 * if (isTestOnlyPatch(proposal.patch)) return null // never proposed as a fix
 */
export function isTestOnlyPatch(patch: Patch): boolean {
  return leaves(patch).some((leaf) => PATCH_KINDS[leaf.kind].testOnly)
}
