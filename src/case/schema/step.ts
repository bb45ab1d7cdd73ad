import { z } from 'zod'
import { InstantSchema, JsonSchema } from './json.ts'
import { NormalizedRequestSchema, NormalizedResponseSchema } from './normalized.ts'

/** When a step started and how long it took. */
export const TimingSchema = z.strictObject({
  startedAt: InstantSchema,
  durationMs: z.number().nonnegative(),
})

/** An error as data: what was thrown or returned, never a live object. */
export const StepErrorSchema = z.strictObject({
  name: z.string(),
  message: z.string(),
  code: z.string().optional(),
  /** The HTTP status, for provider errors. */
  status: z.number().int().optional(),
})

/** Header names are lower-case; only allow-listed headers are kept. */
export const HeadersSchema = z.record(z.string(), z.string())

/**
 * A binary body (audio, an image, a PDF, a multipart upload), stored beside the cassette as the sidecar
 * file `<cassette name>.files/<sha256>`, never as base64 inside the JSON.
 */
export const BodyFileSchema = z.strictObject({
  /** Lower-case hex sha256 of the bytes: the sidecar's file name. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'a lower-case hex sha256'),
  /** The content type without parameters, e.g. `audio/mpeg`, `multipart/form-data`. */
  mediaType: z.string(),
  /** The size in bytes. */
  bytes: z.number().int().nonnegative(),
})

export const WireRequestSchema = z.strictObject({
  method: z.string(),
  url: z.string(),
  headers: HeadersSchema,
  /** The parsed JSON body; null when there was none or it was not JSON (then see `bodyText`). */
  body: JsonSchema.nullable(),
  bodyText: z.string().optional(),
  /** A binary body, in a sidecar file; `body` is then null. */
  bodyFile: BodyFileSchema.optional(),
})

/** One server-sent event, with its arrival time relative to the response's start. */
export const SseChunkSchema = z.strictObject({
  event: z.string().optional(),
  id: z.string().optional(),
  data: z.string(),
  atMs: z.number().nonnegative(),
})

export const WireResponseSchema = z.strictObject({
  status: z.number().int(),
  headers: HeadersSchema,
  body: JsonSchema.nullable(),
  bodyText: z.string().optional(),
  /** A binary body, in a sidecar file; `body` is then null. */
  bodyFile: BodyFileSchema.optional(),
  /** For streamed responses, the events as they arrived; `body` is then null. */
  chunks: z.array(SseChunkSchema).optional(),
})

/** What a runtime detector found. Evidence is verbatim quotes from the steps it names. */
export const SeveritySchema = z.enum(['info', 'warn', 'error', 'critical'])
export const FindingSchema = z.strictObject({
  kind: z.string(),
  severity: SeveritySchema,
  steps: z.array(z.number().int().nonnegative()),
  message: z.string(),
  evidence: z.array(z.string()),
})

/** A price, with where it came from, so that a cost in a cassette can be reproduced. */
export const CostSchema = z.strictObject({
  usd: z.number().nonnegative(),
  catalog: z.string().optional(),
  catalogVersion: z.string().optional(),
  priceDate: z.string().optional(),
})

const stepBase = {
  /** Position in `run.steps`, from 0, over all step types. */
  index: z.number().int().nonnegative(),
  timing: TimingSchema,
  error: StepErrorSchema.nullable(),
}

export const LlmStepSchema = z.strictObject({
  ...stepBase,
  type: z.literal('llm'),
  /** The adapter that read the wire: `openai-chat`, `openai-responses`, `anthropic-messages`, `gemini`. */
  provider: z.string(),
  /** The API operation, e.g. `chat.completions`. */
  endpoint: z.string(),
  request: z.strictObject({
    wire: WireRequestSchema,
    normalized: NormalizedRequestSchema.nullable(),
    /** sha256 over method, path, version headers and the canonical normalized request. */
    requestHash: z.string(),
  }),
  response: z
    .strictObject({
      wire: WireResponseSchema,
      normalized: NormalizedResponseSchema.nullable(),
      /** The stream ended early, errored or was cancelled: what arrived is kept. */
      incomplete: z.boolean(),
    })
    .nullable(),
  cost: CostSchema.nullable().optional(),
})

/** Any other exchange on an intercepted host: a models list, an embeddings call, a trace upload. */
export const HttpStepSchema = z.strictObject({
  ...stepBase,
  type: z.literal('http'),
  /** What the call is, e.g. `models.list`, `traces.ingest`, or `unknown`. */
  label: z.string(),
  request: WireRequestSchema,
  response: WireResponseSchema.nullable(),
})

export const ToolStepSchema = z.strictObject({
  ...stepBase,
  type: z.literal('tool'),
  name: z.string(),
  /** The model's tool-call id, when the call answers one. */
  callId: z.string().optional(),
  args: JsonSchema,
  /** The result as data; absent when the tool threw. */
  result: JsonSchema.optional(),
  sideEffects: z.boolean(),
  /** A call that was blocked instead of run (a side-effect tool during a fork). */
  blocked: z.boolean().optional(),
})

export const StepSchema = z.discriminatedUnion('type', [LlmStepSchema, HttpStepSchema, ToolStepSchema])

export type Timing = z.infer<typeof TimingSchema>
export type StepError = z.infer<typeof StepErrorSchema>
export type BodyFile = z.infer<typeof BodyFileSchema>
export type WireRequest = z.infer<typeof WireRequestSchema>
export type SseChunk = z.infer<typeof SseChunkSchema>
export type WireResponse = z.infer<typeof WireResponseSchema>
export type Severity = z.infer<typeof SeveritySchema>
export type Finding = z.infer<typeof FindingSchema>
export type Cost = z.infer<typeof CostSchema>
export type LlmStep = z.infer<typeof LlmStepSchema>
export type HttpStep = z.infer<typeof HttpStepSchema>
export type ToolStep = z.infer<typeof ToolStepSchema>
export type Step = z.infer<typeof StepSchema>
export type StepType = Step['type']
