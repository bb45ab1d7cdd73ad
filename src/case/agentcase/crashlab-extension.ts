import type { z } from 'zod'
import { lazySchema, zod } from '../../lazy-zod.ts'
import { InstantSchema } from '../schema/json.ts'
import {
  CheckResultSchema,
  DiagnosisSchema,
  EntryPointSchema,
  FixProposalSchema,
  OutcomeSchema,
  RedactionInfoSchema,
  RunIdSchema,
  RunLinksSchema,
  RunStatusSchema,
  UsageTotalsSchema,
} from '../schema/run.ts'
import {
  CostSchema,
  FindingSchema,
  McpCallSchema,
  TimingSchema,
  WireRequestSchema,
  WireResponseSchema,
} from '../schema/step.ts'

/**
 * What a crashlab export keeps under `extensions["dev.crashlab"]`: everything of the run that AgentCase
 * has no field for, so that `fromAgentCase(toAgentCase(run))` gives the run back. What a payload
 * already carries exactly (normalized messages, tool arguments and results, errors, name, input,
 * output) is not repeated here. The layout is versioned by `schema` so that a later crashlab can still
 * read older exports; it is crashlab's own contract, not part of AgentCase.
 */

/**
 * The namespaced key of crashlab's data in `extensions` objects (reverse-DNS, so it cannot collide with
 * another tool's).
 *
 * @example
 * const mine = c.extensions[CRASHLAB_EXTENSION] // present on cases crashlab exported
 */
export const CRASHLAB_EXTENSION = 'dev.crashlab'
export const CRASHLAB_EXTENSION_SCHEMA = 1

/** Root: the run-level fields with no AgentCase home. */
export const RootExtensionSchema = lazySchema(() =>
  zod.strictObject({
    schema: zod.literal(CRASHLAB_EXTENSION_SCHEMA),
    run: zod.strictObject({
      id: RunIdSchema,
      tags: zod.array(zod.string()),
      status: RunStatusSchema,
      outcome: OutcomeSchema,
      entryPoint: EntryPointSchema.nullable(),
      endedAt: InstantSchema.nullable(),
      usage: UsageTotalsSchema,
      cost: CostSchema.nullable(),
      gitSha: zod.string().nullable(),
      links: RunLinksSchema,
      checks: zod.array(CheckResultSchema),
      findings: zod.array(FindingSchema),
      diagnosis: DiagnosisSchema.nullable(),
      fixes: zod.array(FixProposalSchema),
      redaction: RedactionInfoSchema,
    }),
  }),
)

/** On a model.request: the llm step minus its normalized request (the payload) and its response. */
export const LlmStepExtensionSchema = lazySchema(() =>
  zod.strictObject({
    type: zod.literal('llm'),
    endpoint: zod.string(),
    timing: TimingSchema,
    /** Kept only when the step has the key, so that an absent `cost` stays absent. */
    cost: CostSchema.nullable().optional(),
    request: zod.strictObject({
      wire: WireRequestSchema,
      requestHash: zod.string(),
      /** True when the payload's model, input, parameters and tools are the normalized request. */
      normalized: zod.boolean(),
    }),
  }),
)

/** On a tool.call: the tool step minus what the call and result payloads carry. */
export const ToolStepExtensionSchema = lazySchema(() =>
  zod.strictObject({
    type: zod.literal('tool'),
    timing: TimingSchema,
    sideEffects: zod.boolean(),
    blocked: zod.boolean().optional(),
    /** False when the step had no call id and the payload's `call_id` was made up for the contract. */
    callId: zod.boolean(),
    /** An MCP server's tool (`tools/call`): the step's `mcp` as it is (server, `isError`, HTTP exchange). */
    mcp: McpCallSchema.optional(),
  }),
)

/** On a custom event: an http step, whose wire has no AgentCase field at all. */
export const HttpStepExtensionSchema = lazySchema(() =>
  zod.strictObject({
    type: zod.literal('http'),
    timing: TimingSchema,
    request: WireRequestSchema,
    response: WireResponseSchema.nullable(),
  }),
)

export const StepExtensionSchema = lazySchema(() =>
  zod.discriminatedUnion('type', [LlmStepExtensionSchema, ToolStepExtensionSchema, HttpStepExtensionSchema]),
)

/** On a model.response: the wire response and the normalized fields the payload has no key for. */
export const ResponseExtensionSchema = lazySchema(() =>
  zod.strictObject({
    wire: WireResponseSchema,
    incomplete: zod.boolean(),
    normalized: zod.boolean(),
    model: zod.string().nullable().optional(),
    requestId: zod.string().nullable().optional(),
  }),
)

/** What any event may carry under the key. */
export const EventExtensionSchema = lazySchema(() =>
  zod.strictObject({
    step: StepExtensionSchema.optional(),
    response: ResponseExtensionSchema.optional(),
    /** On an exception: the step index whose `error` it is, or `run` for the run's error. */
    errorOf: zod.union([zod.int().min(0), zod.literal('run')]).optional(),
    /** On events derived from others (retries): nothing to import. */
    derived: zod.literal('retry').optional(),
  }),
)

export type RootExtension = z.infer<typeof RootExtensionSchema>
export type LlmStepExtension = z.infer<typeof LlmStepExtensionSchema>
export type ToolStepExtension = z.infer<typeof ToolStepExtensionSchema>
export type HttpStepExtension = z.infer<typeof HttpStepExtensionSchema>
export type StepExtension = z.infer<typeof StepExtensionSchema>
export type ResponseExtension = z.infer<typeof ResponseExtensionSchema>
export type EventExtension = z.infer<typeof EventExtensionSchema>
