import { z } from 'zod'
import { JsonObjectSchema, JsonSchema } from './json.ts'

/**
 * The provider-neutral shapes every piece of crashlab shares. Provider adapters fill them from the wire
 * of each API; checks, diff, patches and diagnosis read only these.
 */

export const TextPartSchema = z.strictObject({ type: z.literal('text'), text: z.string() })

export const ToolCallPartSchema = z.strictObject({
  type: z.literal('tool_call'),
  id: z.string(),
  name: z.string(),
  /** Parsed arguments. When the model wrote arguments that are not JSON, `args` is null and `argsText` keeps them. */
  args: JsonSchema,
  argsText: z.string().optional(),
})

export const ToolResultPartSchema = z.strictObject({
  type: z.literal('tool_result'),
  id: z.string(),
  name: z.string().optional(),
  content: z.string(),
  isError: z.boolean(),
})

/** Images, audio and files: a placeholder with what they are and how big, never the bytes. */
export const MediaPartSchema = z.strictObject({
  type: z.literal('media'),
  mediaType: z.string(),
  bytes: z.number().int().nonnegative().nullable(),
  /** Where the media lives when it was passed by reference (a URL or a file id), never a data: URL. */
  ref: z.string().optional(),
  sha256: z.string().optional(),
})

export const ReasoningPartSchema = z.strictObject({
  type: z.literal('reasoning'),
  text: z.string(),
  /** Set when the provider returned the reasoning encrypted or redacted. */
  opaque: z.boolean().optional(),
})

export const PartSchema = z.discriminatedUnion('type', [
  TextPartSchema,
  ToolCallPartSchema,
  ToolResultPartSchema,
  MediaPartSchema,
  ReasoningPartSchema,
])

export const RoleSchema = z.enum(['system', 'user', 'assistant', 'tool'])

export const MessageSchema = z.strictObject({
  role: RoleSchema,
  parts: z.array(PartSchema),
  name: z.string().optional(),
})

export const ToolDefinitionSchema = z.strictObject({
  name: z.string(),
  description: z.string().optional(),
  /** The tool's input as JSON Schema. */
  parameters: JsonObjectSchema,
})

export const ParamsSchema = z.strictObject({
  temperature: z.number().optional(),
  topP: z.number().optional(),
  maxTokens: z.number().int().optional(),
  stop: z.array(z.string()).optional(),
  seed: z.number().int().optional(),
  toolChoice: JsonSchema.optional(),
  responseFormat: JsonSchema.optional(),
  stream: z.boolean().optional(),
  /** Provider parameters with no neutral name (reasoning effort, top_k, ...), under their wire names. */
  extra: z.record(z.string(), JsonSchema).optional(),
})

export const NormalizedRequestSchema = z.strictObject({
  model: z.string(),
  /** The system prompt as parts (Anthropic and Gemini allow several blocks). */
  system: z.array(PartSchema),
  messages: z.array(MessageSchema),
  tools: z.array(ToolDefinitionSchema),
  params: ParamsSchema,
})

export const FinishReasonSchema = z.enum(['stop', 'length', 'tool_calls', 'content_filter', 'error'])

export const UsageSchema = z.strictObject({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  cachedTokens: z.number().int().nonnegative().optional(),
  /** Input tokens written to the prompt cache (Anthropic's cache creation), inside `inputTokens` and priced apart. */
  cacheWriteTokens: z.number().int().nonnegative().optional(),
  reasoningTokens: z.number().int().nonnegative().optional(),
})

export const NormalizedResponseSchema = z.strictObject({
  model: z.string().nullable(),
  requestId: z.string().nullable(),
  /** Text, reasoning and media the model produced, in order. */
  parts: z.array(PartSchema),
  toolCalls: z.array(ToolCallPartSchema),
  /** Null when the response ended before saying why (a cut stream). */
  finishReason: FinishReasonSchema.nullable(),
  usage: UsageSchema.nullable(),
})

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
