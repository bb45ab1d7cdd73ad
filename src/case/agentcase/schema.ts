import type { z } from 'zod'
import { lazySchema, zod } from '../../lazy-zod.ts'
import { JsonObjectSchema } from '../schema/json.ts'

/**
 * The AgentCase 0.1 model, exactly as the format defines it. Every core object is strict (an unknown key
 * is an error, so a typo never passes as data); free JSON is allowed only where the format allows it:
 * `payload`, `extensions`, `user_metadata`, `model.configuration` and `changed_configuration`.
 * The cross-field rules (redaction status, replay safety, event ids, sequences, parents) are checked by
 * `validateAgentCase`, not here, because each has its own error code.
 */

/**
 * The `format_name` every AgentCase carries.
 *
 * @example
 * if (value.format_name === AGENTCASE_FORMAT_NAME) parseAgentCase(text)
 */
export const AGENTCASE_FORMAT_NAME = 'agentcase'
/**
 * The format versions this reader accepts, in the order the error message lists them.
 *
 * @example
 * AGENTCASE_SUPPORTED_VERSIONS.includes(c.format_version) // true for '0.1'
 */
export const AGENTCASE_SUPPORTED_VERSIONS = ['0.1'] as const
/**
 * The version this writer writes.
 *
 * @example
 * toAgentCase(run).format_version === AGENTCASE_VERSION // true
 */
export const AGENTCASE_VERSION = '0.1'
/**
 * The size bound of the format: 16 MiB (16,777,216 bytes), checked before parsing.
 *
 * @example
 * parseAgentCase(bytes, { maxBytes: AGENTCASE_MAX_BYTES * 2 }) // only for files you trust
 */
export const AGENTCASE_MAX_BYTES = 16 * 1024 * 1024

/**
 * Any UUID in its 8-4-4-4-12 hex text form. Version and variant bits are not checked: the reference
 * reader (Python's `uuid.UUID`) accepts every version, and a foreign writer may use any of them.
 */
export const AgentCaseUuidSchema = lazySchema(() =>
  zod.guid({ message: 'expected a UUID (8-4-4-4-12 hex digits)' }),
)

/** RFC 3339 with a zone (`Z` or `±hh:mm`); a naive timestamp is ambiguous across machines and rejected. */
export const AgentCaseTimestampSchema = lazySchema(() =>
  zod.iso.datetime({
    offset: true,
    message: 'expected an RFC 3339 timestamp with a zone, e.g. 2026-07-14T00:00:00Z',
  }),
)

const FreeObject = lazySchema(() => JsonObjectSchema)

export const RuntimeSchema = lazySchema(() =>
  zod.strictObject({
    implementation: zod.string(),
    /** Named for Python by the format; a TypeScript writer puts the Node version here. */
    python_version: zod.string(),
  }),
)

export const PlatformSchema = lazySchema(() =>
  zod.strictObject({ system: zod.string(), release: zod.string(), machine: zod.string() }),
)

export const ProviderInfoSchema = lazySchema(() =>
  zod.strictObject({
    provider_id: zod.string(),
    provider_version: zod.string().nullable().optional(),
  }),
)

export const ModelInfoSchema = lazySchema(() =>
  zod.strictObject({ model_id: zod.string(), configuration: FreeObject }),
)

export const IntegrationInfoSchema = lazySchema(() =>
  zod.strictObject({
    integration_id: zod.string(),
    integration_version: zod.string().nullable().optional(),
  }),
)

export const AgentCaseMetadataSchema = lazySchema(() =>
  zod.strictObject({
    reproagent_version: zod.string(),
    runtime: RuntimeSchema,
    platform: PlatformSchema,
    provider: ProviderInfoSchema.nullable(),
    model: ModelInfoSchema.nullable(),
    integration: IntegrationInfoSchema.nullable(),
    user_metadata: FreeObject,
    extensions: FreeObject,
  }),
)

export const EventTypeSchema = lazySchema(() =>
  zod.enum([
    'execution.start',
    'execution.end',
    'message',
    'model.request',
    'model.response',
    'tool.definition',
    'tool.call',
    'tool.result',
    'exception',
    'retry',
    'custom',
  ]),
)

export const CaptureStatusSchema = lazySchema(() =>
  zod.enum(['captured', 'partial', 'failed', 'unsupported']),
)
export const EventRedactionStatusSchema = lazySchema(() =>
  zod.enum(['none', 'redacted', 'partial', 'unknown']),
)

/**
 * One event: the envelope is strict, the payload and extensions are free JSON.
 *
 * @example
 * AgentCaseEventSchema.safeParse(c.events[0]).success // true
 */
export const AgentCaseEventSchema = lazySchema(() =>
  zod.strictObject({
    event_id: AgentCaseUuidSchema,
    event_type: EventTypeSchema,
    sequence: zod.int().min(0),
    timestamp: AgentCaseTimestampSchema,
    parent_event_id: AgentCaseUuidSchema.nullable(),
    payload: FreeObject,
    capture_status: CaptureStatusSchema,
    redaction_status: EventRedactionStatusSchema,
    extensions: FreeObject,
  }),
)

export const AgentCaseOutcomeSchema = lazySchema(() =>
  zod.enum(['success', 'failure', 'partial', 'cancelled', 'timeout', 'unknown']),
)
export const AgentCaseCompletenessSchema = lazySchema(() =>
  zod.enum(['complete', 'partial', 'degraded', 'interrupted', 'unsupported']),
)

export const AgentCaseRedactionRecordSchema = lazySchema(() =>
  zod.strictObject({
    /** RFC 6901 JSON Pointer into the case. */
    field_path: zod.string(),
    rule_id: zod.string(),
    replacement_marker: zod.string(),
    /** The format only knows irreversible redaction: the original is never kept anywhere. */
    irreversible: zod.literal(true),
  }),
)

export const AgentCaseRedactionSchema = lazySchema(() =>
  zod.strictObject({
    status: EventRedactionStatusSchema,
    records: zod.array(AgentCaseRedactionRecordSchema),
    warnings: zod.array(zod.string()),
    potentially_sensitive_unredacted: zod.boolean(),
    extensions: FreeObject,
  }),
)

export const ReplayModeSchema = lazySchema(() => zod.enum(['mock', 'live', 'differential']))
export const DeterminismGuaranteeSchema = lazySchema(() =>
  zod.enum(['deterministic', 'best_effort', 'none', 'unknown']),
)

export const AgentCaseReplaySchema = lazySchema(() =>
  zod.strictObject({
    mode: ReplayModeSchema,
    source_case_id: AgentCaseUuidSchema,
    replayed_at: AgentCaseTimestampSchema,
    substitutions: zod.array(zod.strictObject({ target: zod.string(), description: zod.string() })),
    changed_provider: zod.string().nullable().optional(),
    changed_model: zod.string().nullable().optional(),
    changed_configuration: FreeObject,
    determinism_guarantee: DeterminismGuaranteeSchema,
    unresolved_external_dependencies: zod.array(zod.string()),
    live_side_effects_approved: zod.boolean(),
    extensions: FreeObject,
  }),
)

/**
 * The root of an `.agentcase` file.
 *
 * @example
 * const result = AgentCaseSchema.safeParse(JSON.parse(text)) // shape only; prefer parseAgentCase(text)
 */
export const AgentCaseSchema = lazySchema(() =>
  zod.strictObject({
    format_name: zod.literal(AGENTCASE_FORMAT_NAME),
    format_version: zod.enum(AGENTCASE_SUPPORTED_VERSIONS),
    case_id: AgentCaseUuidSchema,
    execution_id: AgentCaseUuidSchema,
    created_at: AgentCaseTimestampSchema,
    metadata: AgentCaseMetadataSchema,
    events: zod.array(AgentCaseEventSchema),
    outcome: AgentCaseOutcomeSchema,
    completeness: AgentCaseCompletenessSchema,
    redaction: AgentCaseRedactionSchema,
    replay: AgentCaseReplaySchema.nullable(),
    extensions: FreeObject,
  }),
)

export type AgentCaseRuntime = z.infer<typeof RuntimeSchema>
export type AgentCasePlatform = z.infer<typeof PlatformSchema>
export type AgentCaseProviderInfo = z.infer<typeof ProviderInfoSchema>
export type AgentCaseModelInfo = z.infer<typeof ModelInfoSchema>
export type AgentCaseIntegrationInfo = z.infer<typeof IntegrationInfoSchema>
export type AgentCaseMetadata = z.infer<typeof AgentCaseMetadataSchema>
export type AgentCaseEventType = z.infer<typeof EventTypeSchema>
export type AgentCaseCaptureStatus = z.infer<typeof CaptureStatusSchema>
export type AgentCaseRedactionStatus = z.infer<typeof EventRedactionStatusSchema>
export type AgentCaseEvent = z.infer<typeof AgentCaseEventSchema>
export type AgentCaseOutcome = z.infer<typeof AgentCaseOutcomeSchema>
export type AgentCaseCompleteness = z.infer<typeof AgentCaseCompletenessSchema>
export type AgentCaseRedactionRecord = z.infer<typeof AgentCaseRedactionRecordSchema>
export type AgentCaseRedaction = z.infer<typeof AgentCaseRedactionSchema>
export type AgentCaseReplayMode = z.infer<typeof ReplayModeSchema>
export type AgentCaseDeterminism = z.infer<typeof DeterminismGuaranteeSchema>
export type AgentCaseReplay = z.infer<typeof AgentCaseReplaySchema>
/**
 * A parsed AgentCase 0.1 document.
 *
 * @example
 * const c: AgentCase = loadAgentCase('failure.agentcase')
 */
export type AgentCase = z.infer<typeof AgentCaseSchema>
