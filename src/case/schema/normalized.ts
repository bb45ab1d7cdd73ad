import type { z } from 'zod'
import { lazySchema, zod } from '../../lazy-zod.ts'
import { JsonObjectSchema, JsonSchema } from './json.ts'

/**
 * The provider-neutral shapes every piece of crashlab shares. Provider adapters fill them from the wire
 * of each API; checks, diff, patches and diagnosis read only these.
 */

export const TextPartSchema = lazySchema(() =>
  zod.strictObject({ type: zod.literal('text'), text: zod.string() }),
)

export const ToolCallPartSchema = lazySchema(() =>
  zod.strictObject({
    type: zod.literal('tool_call'),
    id: zod.string(),
    name: zod.string(),
    /** Parsed arguments. When the model wrote arguments that are not JSON, `args` is null and `argsText` keeps them. */
    args: JsonSchema,
    argsText: zod.string().optional(),
  }),
)

export const ToolResultPartSchema = lazySchema(() =>
  zod.strictObject({
    type: zod.literal('tool_result'),
    id: zod.string(),
    name: zod.string().optional(),
    content: zod.string(),
    isError: zod.boolean(),
  }),
)

/** Images, audio and files: a placeholder with what they are and how big, never the bytes. */
export const MediaPartSchema = lazySchema(() =>
  zod.strictObject({
    type: zod.literal('media'),
    mediaType: zod.string(),
    bytes: zod.number().int().nonnegative().nullable(),
    /** Where the media lives when it was passed by reference (a URL or a file id), never a data: URL. */
    ref: zod.string().optional(),
    sha256: zod.string().optional(),
  }),
)

export const ReasoningPartSchema = lazySchema(() =>
  zod.strictObject({
    type: zod.literal('reasoning'),
    text: zod.string(),
    /** Set when the provider returned the reasoning encrypted or redacted. */
    opaque: zod.boolean().optional(),
  }),
)

export const PartSchema = lazySchema(() =>
  zod.discriminatedUnion('type', [
    TextPartSchema,
    ToolCallPartSchema,
    ToolResultPartSchema,
    MediaPartSchema,
    ReasoningPartSchema,
  ]),
)

export const RoleSchema = lazySchema(() => zod.enum(['system', 'user', 'assistant', 'tool']))

export const MessageSchema = lazySchema(() =>
  zod.strictObject({
    role: RoleSchema,
    parts: zod.array(PartSchema),
    name: zod.string().optional(),
  }),
)

export const ToolDefinitionSchema = lazySchema(() =>
  zod.strictObject({
    name: zod.string(),
    description: zod.string().optional(),
    /** The tool's input as JSON Schema. */
    parameters: JsonObjectSchema,
  }),
)

export const ParamsSchema = lazySchema(() =>
  zod.strictObject({
    temperature: zod.number().optional(),
    topP: zod.number().optional(),
    maxTokens: zod.number().int().optional(),
    stop: zod.array(zod.string()).optional(),
    seed: zod.number().int().optional(),
    toolChoice: JsonSchema.optional(),
    responseFormat: JsonSchema.optional(),
    stream: zod.boolean().optional(),
    /** Provider parameters with no neutral name (reasoning effort, top_k, ...), under their wire names. */
    extra: zod.record(zod.string(), JsonSchema).optional(),
  }),
)

export const NormalizedRequestSchema = lazySchema(() =>
  zod.strictObject({
    model: zod.string(),
    /** The system prompt as parts (Anthropic and Gemini allow several blocks). */
    system: zod.array(PartSchema),
    messages: zod.array(MessageSchema),
    tools: zod.array(ToolDefinitionSchema),
    params: ParamsSchema,
  }),
)

export const FinishReasonSchema = lazySchema(() =>
  zod.enum(['stop', 'length', 'tool_calls', 'content_filter', 'error']),
)

export const UsageSchema = lazySchema(() =>
  zod.strictObject({
    inputTokens: zod.number().int().nonnegative(),
    outputTokens: zod.number().int().nonnegative(),
    cachedTokens: zod.number().int().nonnegative().optional(),
    /** Input tokens written to the prompt cache (Anthropic's cache creation), inside `inputTokens` and priced apart. */
    cacheWriteTokens: zod.number().int().nonnegative().optional(),
    reasoningTokens: zod.number().int().nonnegative().optional(),
  }),
)

export const NormalizedResponseSchema = lazySchema(() =>
  zod.strictObject({
    model: zod.string().nullable(),
    requestId: zod.string().nullable(),
    /** Text, reasoning and media the model produced, in order. */
    parts: zod.array(PartSchema),
    toolCalls: zod.array(ToolCallPartSchema),
    /** Null when the response ended before saying why (a cut stream). */
    finishReason: FinishReasonSchema.nullable(),
    usage: UsageSchema.nullable(),
  }),
)

export type TextPart = z.infer<typeof TextPartSchema>
export type ToolCallPart = z.infer<typeof ToolCallPartSchema>
export type ToolResultPart = z.infer<typeof ToolResultPartSchema>
export type MediaPart = z.infer<typeof MediaPartSchema>
export type ReasoningPart = z.infer<typeof ReasoningPartSchema>
export type Part = z.infer<typeof PartSchema>
export type Role = z.infer<typeof RoleSchema>
export type Message = z.infer<typeof MessageSchema>
export type ToolDefinition = z.infer<typeof ToolDefinitionSchema>
export type Params = z.infer<typeof ParamsSchema>
export type NormalizedRequest = z.infer<typeof NormalizedRequestSchema>
export type FinishReason = z.infer<typeof FinishReasonSchema>
export type Usage = z.infer<typeof UsageSchema>
export type NormalizedResponse = z.infer<typeof NormalizedResponseSchema>
