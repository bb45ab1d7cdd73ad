import type { z } from 'zod'
import { JsonObjectSchema, JsonSchema } from '../case/schema/json.ts'
import { lazySchema, zod } from '../lazy-zod.ts'
import { PatchScopeSchema, textEditVariants, unknownOp } from './text-edit-schema.ts'

/**
 * Typed patches: small, serializable changes to a normalized LLM request. A fork applies one to every
 * request from its fork step on; a fix proposal is one. Every schema is strict, so a misspelt key is an
 * error that names it instead of a patch that silently does nothing.
 */

const when = lazySchema(() => ({ when: PatchScopeSchema.optional() }))

/**
 * The system prompt: replace, append, prepend, insert a line, replace or delete a line, substitute.
 *
 * @example
 * SystemPromptPatchSchema.parse({ kind: 'system_prompt', op: 'insert', after: 'Be brief.', text: 'Check the total.' })
 */
export const SystemPromptPatchSchema = lazySchema(() =>
  zod.discriminatedUnion('op', textEditVariants('system_prompt', {}), unknownOp),
)

/**
 * One tool's description, with the same edits as the system prompt.
 *
 * @example
 * ToolDescriptionPatchSchema.parse({ kind: 'tool_description', tool: 'issue_refund', op: 'append', text: 'Max: the order total.' })
 */
export const ToolDescriptionPatchSchema = lazySchema(() =>
  zod.discriminatedUnion(
    'op',
    textEditVariants('tool_description', { tool: zod.string().min(1) }),
    unknownOp,
  ),
)

const messageTarget = lazySchema(() => ({
  /** Counts among the messages that pass `role` and `contains`, from 0; negative counts from the end. */
  index: zod.number().int().optional(),
  role: zod.enum(['system', 'user', 'assistant', 'tool']).optional(),
  /** Text the message contains. */
  contains: zod.string().min(1).optional(),
}))
const kind = lazySchema(() => zod.literal('message'))
const namesMessage = [
  (v: { index?: number | undefined; contains?: string | undefined }) =>
    v.index !== undefined || v.contains !== undefined,
  { message: 'name the message: give `index`, `contains`, or both', path: ['index'] as PropertyKey[] },
] as const

/**
 * One message already in the conversation: its text replaced or substituted, or the message deleted.
 * Only text parts change: tool calls, results and media stay as they are.
 *
 * @example
 * MessagePatchSchema.parse({ kind: 'message', op: 'substitute', role: 'user', index: 0, find: 'A17', replace: 'A18' })
 */
export const MessagePatchSchema = lazySchema(() =>
  zod.discriminatedUnion(
    'op',
    [
      zod
        .strictObject({ kind, op: zod.literal('replace'), ...messageTarget, text: zod.string(), ...when })
        .refine(...namesMessage),
      zod
        .strictObject({
          kind,
          op: zod.literal('substitute'),
          ...messageTarget,
          find: zod.string().min(1, 'nothing to find: `find` is empty'),
          replace: zod.string(),
          all: zod.boolean().optional(),
          ...when,
        })
        .refine(...namesMessage),
      zod
        .strictObject({ kind, op: zod.literal('delete'), ...messageTarget, ...when })
        .refine(...namesMessage),
    ],
    { error: () => 'unknown op: expected one of replace, substitute, delete' },
  ),
)

/**
 * A new user or assistant message, put in before the message at `at` (at the end when `at` is left out).
 *
 * @example
 * InjectMessagePatchSchema.parse({ kind: 'inject_message', role: 'user', text: 'Check the total first.', at: -1 })
 */
export const InjectMessagePatchSchema = lazySchema(() =>
  zod.strictObject({
    kind: zod.literal('inject_message'),
    role: zod.enum(['user', 'assistant']),
    text: zod.string().min(1),
    /** The new message's place: before the message now at this index; negative counts from the end. */
    at: zod.number().int().optional(),
    ...when,
  }),
)

/**
 * TEST-ONLY. A counterfactual tool result or error, in place of what the tool returned: "what would the
 * agent have done had `get_order` failed?". It changes evidence, not the agent, so a fix proposal must
 * never use it (`isTestOnlyPatch`).
 *
 * @example
 * ToolResultPatchSchema.parse({ kind: 'tool_result', tool: 'get_order', error: 'upstream timeout' })
 */
export const ToolResultPatchSchema = lazySchema(() =>
  zod
    .strictObject({
      kind: zod.literal('tool_result'),
      /** The tool whose results change (every one, or the `nth`). */
      tool: zod.string().min(1).optional(),
      /** The one tool call whose result changes. */
      callId: zod.string().min(1).optional(),
      /** Among the matching results, the one to change, from 0; negative counts from the end. */
      nth: zod.number().int().optional(),
      /** The new result: text as is, any other JSON value as JSON text. */
      result: JsonSchema.optional(),
      /** The tool fails with this message instead. */
      error: zod.string().min(1).optional(),
      ...when,
    })
    .refine((v) => v.tool !== undefined || v.callId !== undefined, {
      message: 'name the result: give `tool`, `callId`, or both',
      path: ['tool'],
    })
    .refine((v) => (v.result === undefined) !== (v.error === undefined), {
      message: 'give exactly one of `result` (what the tool returns) and `error` (how it fails)',
      path: ['result'],
    }),
)

/**
 * One tool's input schema: replaced, or merged as a JSON Merge Patch (RFC 7386: `null` deletes a key).
 *
 * @example
 * ToolSchemaPatchSchema.parse({ kind: 'tool_schema', tool: 'issue_refund', op: 'merge', parameters: { required: ['amount'] } })
 */
export const ToolSchemaPatchSchema = lazySchema(() =>
  zod.strictObject({
    kind: zod.literal('tool_schema'),
    tool: zod.string().min(1),
    op: zod.enum(['replace', 'merge']),
    parameters: JsonObjectSchema,
    ...when,
  }),
)

const nullable = <T extends z.ZodType>(s: T) => s.nullable().optional()

/**
 * The model and sampling parameters. `null` removes a parameter; `extra` holds wire-named ones
 * (`top_k`, `reasoning`) and merges key by key (`null` removes one). `stream` is not patchable: the
 * agent's client decides how it reads the answer.
 *
 * @example
 * ModelParamPatchSchema.parse({ kind: 'model_params', model: 'gpt-5', params: { temperature: 0, seed: null } })
 */
export const ModelParamPatchSchema = lazySchema(() =>
  zod
    .strictObject({
      kind: zod.literal('model_params'),
      model: zod.string().min(1).optional(),
      params: zod
        .strictObject({
          temperature: nullable(zod.number()),
          topP: nullable(zod.number()),
          maxTokens: nullable(zod.number().int().positive()),
          stop: nullable(zod.array(zod.string())),
          seed: nullable(zod.number().int()),
          toolChoice: nullable(JsonSchema),
          responseFormat: nullable(JsonSchema),
          extra: zod.record(zod.string(), JsonSchema).optional(),
        })
        .optional(),
      ...when,
    })
    .refine((v) => v.model !== undefined || v.params !== undefined, {
      message: 'nothing to change: give `model`, `params`, or both',
      path: ['model'],
    }),
)

/**
 * The single patches (every kind but `compose`).
 *
 * @example
 * LeafPatchSchema.options.length // 7 kinds
 */
export const LeafPatchSchema = lazySchema(() =>
  zod.discriminatedUnion(
    'kind',
    [
      SystemPromptPatchSchema,
      MessagePatchSchema,
      InjectMessagePatchSchema,
      ToolResultPatchSchema,
      ToolDescriptionPatchSchema,
      ToolSchemaPatchSchema,
      ModelParamPatchSchema,
    ],
    {
      error: () =>
        'unknown patch kind: expected one of system_prompt, message, inject_message, tool_result, ' +
        'tool_description, tool_schema, model_params, compose',
    },
  ),
)

/**
 * Patches applied in order, each to the result of the one before. Compositions do not nest: `compose()`
 * flattens them.
 *
 * @example
 * ComposePatchSchema.parse({ kind: 'compose', patches: [{ kind: 'model_params', model: 'gpt-5' }] })
 */
export const ComposePatchSchema = lazySchema(() =>
  zod.strictObject({
    kind: zod.literal('compose'),
    patches: zod.array(LeafPatchSchema),
  }),
)

/**
 * Any patch, as stored in a patch file, a fork and a fix proposal.
 *
 * @example
 * PatchSchema.parse({ kind: 'system_prompt', op: 'append', text: 'Never refund more than the order total.' })
 */
export const PatchSchema = lazySchema(() =>
  zod.discriminatedUnion('kind', [...LeafPatchSchema.options, ComposePatchSchema], {
    error: () =>
      'unknown patch kind: expected one of system_prompt, message, inject_message, tool_result, ' +
      'tool_description, tool_schema, model_params, compose',
  }),
)

/** @example const p: SystemPromptPatch = { kind: 'system_prompt', op: 'append', text: 'Be brief.' } */
export type SystemPromptPatch = z.infer<typeof SystemPromptPatchSchema>
/** @example const p: ToolDescriptionPatch = { kind: 'tool_description', tool: 't', op: 'replace', text: 'Finds orders.' } */
export type ToolDescriptionPatch = z.infer<typeof ToolDescriptionPatchSchema>
/** @example const p: MessagePatch = { kind: 'message', op: 'delete', role: 'user', index: -1 } */
export type MessagePatch = z.infer<typeof MessagePatchSchema>
/** @example const p: InjectMessagePatch = { kind: 'inject_message', role: 'user', text: 'Hurry.' } */
export type InjectMessagePatch = z.infer<typeof InjectMessagePatchSchema>
/** Test-only. @example const p: ToolResultPatch = { kind: 'tool_result', callId: 'call_1', result: { ok: false } } */
export type ToolResultPatch = z.infer<typeof ToolResultPatchSchema>
/** @example const p: ToolSchemaPatch = { kind: 'tool_schema', tool: 't', op: 'replace', parameters: { type: 'object' } } */
export type ToolSchemaPatch = z.infer<typeof ToolSchemaPatchSchema>
/** @example const p: ModelParamPatch = { kind: 'model_params', params: { maxTokens: 500 } } */
export type ModelParamPatch = z.infer<typeof ModelParamPatchSchema>
/** @example const single: LeafPatch = { kind: 'model_params', model: 'gpt-5' } */
export type LeafPatch = z.infer<typeof LeafPatchSchema>
/** @example const both: ComposePatch = { kind: 'compose', patches: [a, b] } */
export type ComposePatch = z.infer<typeof ComposePatchSchema>
/** @example const patch: Patch = parsePatch(text, 'fix.yaml') */
export type Patch = z.infer<typeof PatchSchema>
/** @example const kind: PatchKind = 'system_prompt' */
export type PatchKind = Patch['kind']
