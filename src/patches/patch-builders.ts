import { type Composable, definePatch } from './define-patch.ts'
import type {
  InjectMessagePatch,
  MessagePatch,
  ModelParamPatch,
  SystemPromptPatch,
  ToolDescriptionPatch,
  ToolResultPatch,
  ToolSchemaPatch,
} from './patch-schema.ts'

/**
 * A patch type without its `kind`, distributed over the ops of a kind.
 *
 * @example
 * const fields: PatchFields<SystemPromptPatch> = { op: 'delete_line', line: 'Be brief.' }
 */
export type PatchFields<P> = P extends unknown ? Omit<P, 'kind'> : never

/**
 * One helper per patch kind: `definePatch` with the kind filled in, so an editor completes the ops and
 * their fields.
 *
 * @example
 * systemPromptPatch({ op: 'replace_line', line: 'Be brief.', text: 'Be brief, but always confirm the amount.' })
 */
export function systemPromptPatch<const F extends PatchFields<SystemPromptPatch>>(
  fields: F,
): Composable<Extract<SystemPromptPatch, { op: F['op'] }>> {
  return definePatch({ kind: 'system_prompt', ...fields } as SystemPromptPatch) as Composable<
    Extract<SystemPromptPatch, { op: F['op'] }>
  >
}

/**
 * A `tool_description` patch: one tool's description edited.
 *
 * @example
 * toolDescriptionPatch({ tool: 'issue_refund', op: 'append', text: 'Never above the order total.' })
 */
export function toolDescriptionPatch<const F extends PatchFields<ToolDescriptionPatch>>(
  fields: F,
): Composable<Extract<ToolDescriptionPatch, { op: F['op'] }>> {
  const patch = definePatch({ kind: 'tool_description', ...fields } as ToolDescriptionPatch)
  return patch as Composable<Extract<ToolDescriptionPatch, { op: F['op'] }>>
}

/**
 * A `message` patch: a message of the conversation edited or deleted.
 *
 * @example
 * messagePatch({ op: 'replace', role: 'user', index: 0, text: 'Refund my order A17; it arrived broken.' })
 */
export function messagePatch<const F extends PatchFields<MessagePatch>>(
  fields: F,
): Composable<Extract<MessagePatch, { op: F['op'] }>> {
  return definePatch({ kind: 'message', ...fields } as MessagePatch) as Composable<
    Extract<MessagePatch, { op: F['op'] }>
  >
}

/**
 * An `inject_message` patch: a new user or assistant message.
 *
 * @example
 * injectMessagePatch({ role: 'user', text: 'Please double-check the order total first.' })
 */
export function injectMessagePatch(fields: PatchFields<InjectMessagePatch>): Composable<InjectMessagePatch> {
  return definePatch({ kind: 'inject_message', ...fields })
}

/**
 * A `tool_result` patch, test-only: a counterfactual tool result. Never use it in a fix proposal (`isTestOnlyPatch`).
 *
 * @example
 * toolResultPatch({ tool: 'get_order', error: 'upstream timeout' })
 */
export function toolResultPatch(fields: PatchFields<ToolResultPatch>): Composable<ToolResultPatch> {
  return definePatch({ kind: 'tool_result', ...fields })
}

/**
 * A `tool_schema` patch: one tool's input schema replaced or merged.
 *
 * @example
 * toolSchemaPatch({ tool: 'issue_refund', op: 'merge', parameters: { properties: { amount: { maximum: 49 } } } })
 */
export function toolSchemaPatch(fields: PatchFields<ToolSchemaPatch>): Composable<ToolSchemaPatch> {
  return definePatch({ kind: 'tool_schema', ...fields })
}

/**
 * A `model_params` patch: the model and its parameters.
 *
 * @example
 * modelParamPatch({ model: 'gpt-5-mini', params: { temperature: 0, seed: null } })
 */
export function modelParamPatch(fields: PatchFields<ModelParamPatch>): Composable<ModelParamPatch> {
  return definePatch({ kind: 'model_params', ...fields })
}
