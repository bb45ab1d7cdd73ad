import type { z } from 'zod'
import { lazySchema, zod } from '../../lazy-zod.ts'
import { InstantSchema, JsonSchema } from './json.ts'
import { NormalizedRequestSchema, NormalizedResponseSchema } from './normalized.ts'
import { SEVERITIES } from './severities.ts'

/** When a step started and how long it took. */
export const TimingSchema = lazySchema(() =>
  zod.strictObject({
    startedAt: InstantSchema,
    durationMs: zod.number().nonnegative(),
  }),
)

/** An error as data: what was thrown or returned, never a live object. */
export const StepErrorSchema = lazySchema(() =>
  zod.strictObject({
    name: zod.string(),
    message: zod.string(),
    code: zod.string().optional(),
    /** The HTTP status, for provider errors. */
    status: zod.number().int().optional(),
  }),
)

/** Header names are lower-case; only allow-listed headers are kept. */
export const HeadersSchema = lazySchema(() => zod.record(zod.string(), zod.string()))

/**
 * A binary body (audio, an image, a PDF, a multipart upload), stored beside the cassette as the sidecar
 * file `<cassette name>.files/<sha256>`, never as base64 inside the JSON.
 */
export const BodyFileSchema = lazySchema(() =>
  zod.strictObject({
    /** Lower-case hex sha256 of the bytes: the sidecar's file name. */
    sha256: zod.string().regex(/^[0-9a-f]{64}$/, 'a lower-case hex sha256'),
    /** The content type without parameters, e.g. `audio/mpeg`, `multipart/form-data`. */
    mediaType: zod.string(),
    /** The size in bytes. */
    bytes: zod.number().int().nonnegative(),
  }),
)

export const WireRequestSchema = lazySchema(() =>
  zod.strictObject({
    method: zod.string(),
    url: zod.string(),
    headers: HeadersSchema,
    /** The parsed JSON body; null when there was none or it was not JSON (then see `bodyText`). */
    body: JsonSchema.nullable(),
    bodyText: zod.string().optional(),
    /** A binary body, in a sidecar file; `body` is then null. */
    bodyFile: BodyFileSchema.optional(),
  }),
)

/** One server-sent event, with its arrival time relative to the response's start. */
export const SseChunkSchema = lazySchema(() =>
  zod.strictObject({
    event: zod.string().optional(),
    id: zod.string().optional(),
    data: zod.string(),
    atMs: zod.number().nonnegative(),
  }),
)

export const WireResponseSchema = lazySchema(() =>
  zod.strictObject({
    status: zod.number().int(),
    headers: HeadersSchema,
    body: JsonSchema.nullable(),
    bodyText: zod.string().optional(),
    /** A binary body, in a sidecar file; `body` is then null. */
    bodyFile: BodyFileSchema.optional(),
    /** For streamed responses, the events as they arrived; `body` is then null. */
    chunks: zod.array(SseChunkSchema).optional(),
  }),
)

/** What a runtime detector found. Evidence is verbatim quotes from the steps it names. */
export const SeveritySchema = lazySchema(() => zod.enum(SEVERITIES))
export const FindingSchema = lazySchema(() =>
  zod.strictObject({
    kind: zod.string(),
    severity: SeveritySchema,
    steps: zod.array(zod.number().int().nonnegative()),
    message: zod.string(),
    evidence: zod.array(zod.string()),
  }),
)

/** A price, with where it came from, so that a cost in a cassette can be reproduced. */
export const CostSchema = lazySchema(() =>
  zod.strictObject({
    usd: zod.number().nonnegative(),
    catalog: zod.string().optional(),
    catalogVersion: zod.string().optional(),
    priceDate: zod.string().optional(),
  }),
)

const stepBase = lazySchema(() => ({
  /** Position in `run.steps`, from 0, over all step types. */
  index: zod.number().int().nonnegative(),
  timing: TimingSchema,
  error: StepErrorSchema.nullable(),
}))

export const LlmStepSchema = lazySchema(() =>
  zod.strictObject({
    ...stepBase,
    type: zod.literal('llm'),
    /** The adapter that read the wire: `openai-chat`, `openai-responses`, `anthropic-messages`, `gemini`. */
    provider: zod.string(),
    /** The API operation, e.g. `chat.completions`. */
    endpoint: zod.string(),
    request: zod.strictObject({
      wire: WireRequestSchema,
      normalized: NormalizedRequestSchema.nullable(),
      /** sha256 over method, path, version headers and the canonical normalized request. */
      requestHash: zod.string(),
    }),
    response: zod
      .strictObject({
        wire: WireResponseSchema,
        normalized: NormalizedResponseSchema.nullable(),
        /** The stream ended early, errored or was cancelled: what arrived is kept. */
        incomplete: zod.boolean(),
      })
      .nullable(),
    cost: CostSchema.nullable().optional(),
  }),
)

/** Any other exchange on an intercepted host: a models list, an embeddings call, a trace upload. */
export const HttpStepSchema = lazySchema(() =>
  zod.strictObject({
    ...stepBase,
    type: zod.literal('http'),
    /** What the call is, e.g. `models.list`, `traces.ingest`, or `unknown`. */
    label: zod.string(),
    request: WireRequestSchema,
    response: WireResponseSchema.nullable(),
  }),
)

/**
 * A tool step that is an MCP `tools/call`: which server answered, and the HTTP exchange as it went, so
 * that a replay answers with the same framing (JSON or SSE), status and `Mcp-Session-Id`.
 */
export const McpCallSchema = lazySchema(() =>
  zod.strictObject({
    /** The server's name from its `initialize` answer (`serverInfo.name`), else the URL's host. */
    server: zod.string(),
    /** The JSON-RPC method: `tools/call`. */
    method: zod.string(),
    /** The result said `isError: true`: the tool ran and reported a failure to the model. */
    isError: zod.boolean().optional(),
    /**
     * What decided the step's `sideEffects`: `config` (the config file's `mcp.sideEffects`),
     * `annotations` (the tool as its server's `tools/list` answer described it: side-effect free only
     * with `readOnlyHint: true`), `unlisted` (no listing of the tool was seen: a side effect).
     */
    sideEffectsFrom: zod.enum(['config', 'annotations', 'unlisted']).optional(),
    request: WireRequestSchema,
    /** The HTTP answer; null when the connection failed (then see the step's `error`). */
    response: WireResponseSchema.nullable(),
  }),
)

export const ToolStepSchema = lazySchema(() =>
  zod.strictObject({
    ...stepBase,
    type: zod.literal('tool'),
    name: zod.string(),
    /** The model's tool-call id, when the call answers one. */
    callId: zod.string().optional(),
    args: JsonSchema,
    /** The result as data; absent when the tool threw. */
    result: JsonSchema.optional(),
    sideEffects: zod.boolean(),
    /** A call that was blocked instead of run (a side-effect tool during a fork). */
    blocked: zod.boolean().optional(),
    /** Set when the call was an MCP server's tool (`tools/call`), recorded from the wire. */
    mcp: McpCallSchema.optional(),
  }),
)

export const StepSchema = lazySchema(() =>
  zod.discriminatedUnion('type', [LlmStepSchema, HttpStepSchema, ToolStepSchema]),
)

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
export type McpCall = z.infer<typeof McpCallSchema>
export type ToolStep = z.infer<typeof ToolStepSchema>
export type Step = z.infer<typeof StepSchema>
export type StepType = Step['type']

export { SEVERITIES }
