import { z } from 'zod'
import { InstantSchema, JsonObjectSchema, JsonSchema } from './json.ts'
import { CostSchema, FindingSchema, StepErrorSchema, StepSchema } from './step.ts'

/** A ULID: 26 Crockford base-32 characters, time-ordered. */
export const RunIdSchema = z
  .string()
  .regex(/^[0-9A-HJKMNP-TV-Z]{26}$/, 'expected a ULID (26 Crockford base-32 characters)')

/** How the run ended: `ok` returned, `error` threw, `incomplete` never ended (the process died, the stream was cut). */
export const RunStatusSchema = z.enum(['ok', 'error', 'incomplete'])
/** What the oracles decided: `unknown` when none ran. */
export const OutcomeSchema = z.enum(['pass', 'fail', 'unknown'])
/** How much of the run was captured, as AgentCase 0.1 defines it; independent of the outcome. */
export const CompletenessSchema = z.enum(['complete', 'partial', 'degraded', 'interrupted', 'unsupported'])

/** Where the run can be started again: an importable function, or a Vitest test. */
export const EntryPointSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('module'), module: z.string(), export: z.string() }),
  z.strictObject({ kind: z.literal('test'), file: z.string(), test: z.string() }),
])

export const UsageTotalsSchema = z.strictObject({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  cachedTokens: z.number().int().nonnegative(),
  reasoningTokens: z.number().int().nonnegative(),
  llmCalls: z.number().int().nonnegative(),
  toolCalls: z.number().int().nonnegative(),
})

export const RunLinksSchema = z.strictObject({
  replayOf: RunIdSchema.optional(),
  forkedFrom: RunIdSchema.optional(),
  forkStep: z.number().int().nonnegative().optional(),
  /** The patch a fork applied, as data (the patch issue defines its shape). */
  patch: JsonSchema.optional(),
})

/** The result of one oracle. */
export const CheckResultSchema = z.strictObject({
  name: z.string(),
  passed: z.boolean(),
  message: z.string().optional(),
})

export const FailureLabelSchema = z.enum([
  'TOOL_ERROR_MISHANDLED',
  'BAD_TOOL_ARGUMENTS',
  'WRONG_TOOL_SELECTION',
  'STEP_REPETITION',
  'TASK_SPEC_VIOLATION',
  'EXTERNAL_FAILURE',
  'NO_FAILURE',
  'UNKNOWN',
])

export const DiagnosisSchema = z.strictObject({
  label: FailureLabelSchema,
  failingStep: z.number().int().nonnegative().nullable(),
  rootCause: z.string(),
  evidence: z.array(z.strictObject({ step: z.number().int().nonnegative(), quote: z.string() })),
  /** `heuristic`, or the model that answered. */
  by: z.string(),
  createdAt: InstantSchema,
})

export const FixProposalSchema = z.strictObject({
  id: z.string(),
  rank: z.number().int().positive(),
  patch: JsonSchema,
  rationale: z.string(),
  expectedEffect: z.string(),
})

/** One redaction applied before writing: where (a JSON Pointer into the written document) and which rule. */
export const RunRedactionRecordSchema = z.strictObject({
  path: z.string(),
  rule: z.string(),
})

export const RedactionInfoSchema = z.strictObject({
  status: z.enum(['none', 'redacted', 'partial']),
  records: z.array(RunRedactionRecordSchema),
})

export const RunSchema = z
  .strictObject({
    id: RunIdSchema,
    name: z.string(),
    tags: z.array(z.string()),
    status: RunStatusSchema,
    outcome: OutcomeSchema,
    completeness: CompletenessSchema,
    input: JsonSchema.nullable(),
    output: JsonSchema.nullable(),
    /** What the agent threw, when status is `error`. */
    error: StepErrorSchema.nullable(),
    entryPoint: EntryPointSchema.nullable(),
    startedAt: InstantSchema,
    endedAt: InstantSchema.nullable(),
    usage: UsageTotalsSchema,
    cost: CostSchema.nullable(),
    gitSha: z.string().nullable(),
    links: RunLinksSchema,
    steps: z.array(StepSchema),
    checks: z.array(CheckResultSchema),
    findings: z.array(FindingSchema),
    diagnosis: DiagnosisSchema.nullable(),
    fixes: z.array(FixProposalSchema),
    redaction: RedactionInfoSchema,
    /** The user's own data about the run. */
    metadata: JsonObjectSchema,
  })
  .superRefine(
    (run, ctx) => {
      // Runs even when other fields failed (see `when`), so one load reports every problem at once;
      // the run may therefore be only partly valid here.
      const steps: unknown = (run as { steps?: unknown }).steps
      if (!Array.isArray(steps)) return
      for (let i = 0; i < steps.length; i++) {
        const index: unknown = (steps[i] as { index?: unknown } | null)?.index
        if (typeof index === 'number' && index !== i) {
          ctx.addIssue({
            code: 'custom',
            path: ['steps', i, 'index'],
            message: `step ${i} says it is step ${index}: steps are numbered from 0 in order`,
          })
        }
      }
    },
    { when: (payload) => typeof payload.value === 'object' && payload.value !== null },
  )

export type RunId = z.infer<typeof RunIdSchema>
export type RunStatus = z.infer<typeof RunStatusSchema>
export type Outcome = z.infer<typeof OutcomeSchema>
export type Completeness = z.infer<typeof CompletenessSchema>
export type EntryPoint = z.infer<typeof EntryPointSchema>
export type UsageTotals = z.infer<typeof UsageTotalsSchema>
export type RunLinks = z.infer<typeof RunLinksSchema>
export type CheckResult = z.infer<typeof CheckResultSchema>
export type FailureLabel = z.infer<typeof FailureLabelSchema>
export type Diagnosis = z.infer<typeof DiagnosisSchema>
export type FixProposal = z.infer<typeof FixProposalSchema>
export type RunRedactionRecord = z.infer<typeof RunRedactionRecordSchema>
export type RedactionInfo = z.infer<typeof RedactionInfoSchema>
export type Run = z.infer<typeof RunSchema>
