import type { z } from 'zod'
import { lazySchema, zod } from '../../lazy-zod.ts'
import { InstantSchema, JsonObjectSchema, JsonSchema } from './json.ts'
import { CostSchema, FindingSchema, StepErrorSchema, StepSchema } from './step.ts'

/** A ULID: 26 Crockford base-32 characters, time-ordered. */
export const RunIdSchema = lazySchema(() =>
  zod.string().regex(/^[0-9A-HJKMNP-TV-Z]{26}$/, 'expected a ULID (26 Crockford base-32 characters)'),
)

/** How the run ended: `ok` returned, `error` threw, `incomplete` never ended (the process died, the stream was cut). */
export const RunStatusSchema = lazySchema(() => zod.enum(['ok', 'error', 'incomplete']))
/** What the oracles decided: `unknown` when none ran. */
export const OutcomeSchema = lazySchema(() => zod.enum(['pass', 'fail', 'unknown']))
/** How much of the run was captured, as AgentCase 0.1 defines it; independent of the outcome. */
export const CompletenessSchema = lazySchema(() =>
  zod.enum(['complete', 'partial', 'degraded', 'interrupted', 'unsupported']),
)

/** Where the run can be started again: an importable function, or a Vitest test. */
export const EntryPointSchema = lazySchema(() =>
  zod.discriminatedUnion('kind', [
    zod.strictObject({ kind: zod.literal('module'), module: zod.string(), export: zod.string() }),
    zod.strictObject({ kind: zod.literal('test'), file: zod.string(), test: zod.string() }),
  ]),
)

export const UsageTotalsSchema = lazySchema(() =>
  zod.strictObject({
    inputTokens: zod.number().int().nonnegative(),
    outputTokens: zod.number().int().nonnegative(),
    cachedTokens: zod.number().int().nonnegative(),
    reasoningTokens: zod.number().int().nonnegative(),
    llmCalls: zod.number().int().nonnegative(),
    toolCalls: zod.number().int().nonnegative(),
  }),
)

export const RunLinksSchema = lazySchema(() =>
  zod.strictObject({
    replayOf: RunIdSchema.optional(),
    forkedFrom: RunIdSchema.optional(),
    forkStep: zod.number().int().nonnegative().optional(),
    /** The patch a fork applied, as data (the patch issue defines its shape). */
    patch: JsonSchema.optional(),
    /** A crash test's variant: the run it replays, the recorded step whose answer was a fault, and the fault. */
    crashOf: zod
      .strictObject({
        run: RunIdSchema,
        step: zod.number().int().nonnegative(),
        fault: JsonSchema.optional(),
      })
      .optional(),
  }),
)

/** The result of one oracle. */
export const CheckResultSchema = lazySchema(() =>
  zod.strictObject({
    name: zod.string(),
    passed: zod.boolean(),
    message: zod.string().optional(),
  }),
)

export const FailureLabelSchema = lazySchema(() =>
  zod.enum([
    'TOOL_ERROR_MISHANDLED',
    'BAD_TOOL_ARGUMENTS',
    'WRONG_TOOL_SELECTION',
    'STEP_REPETITION',
    'TASK_SPEC_VIOLATION',
    'EXTERNAL_FAILURE',
    'NO_FAILURE',
    'UNKNOWN',
  ]),
)

export const DiagnosisSchema = lazySchema(() =>
  zod.strictObject({
    label: FailureLabelSchema,
    failingStep: zod.number().int().nonnegative().nullable(),
    rootCause: zod.string(),
    evidence: zod.array(zod.strictObject({ step: zod.number().int().nonnegative(), quote: zod.string() })),
    /** `heuristic`, or the model that answered. */
    by: zod.string(),
    createdAt: InstantSchema,
  }),
)

/** A verdict of `verify`: see docs/verify.md for the rules. */
export const VerdictSchema = lazySchema(() => zod.enum(['VERIFIED', 'LIKELY', 'INCONCLUSIVE', 'REJECTED']))

/** How one trial of a verification ended: `errored` when it could not be judged (a 429 or 5xx, a divergence before the fork step). */
export const TrialOutcomeSchema = lazySchema(() => zod.enum(['pass', 'fail', 'errored']))

/** One arm of a verification (the patched forks, or the unpatched controls): counts and the Wilson 95 % interval of the pass rate. */
export const ArmStatsSchema = lazySchema(() =>
  zod.strictObject({
    /** Trials run, usable or not. */
    trials: zod.number().int().nonnegative(),
    passed: zod.number().int().nonnegative(),
    failed: zod.number().int().nonnegative(),
    errored: zod.number().int().nonnegative(),
    /** passed / (passed + failed); null with no usable trial. */
    passRate: zod.number().min(0).max(1).nullable(),
    /** The Wilson 95 % interval of the pass rate over the usable trials ([0, 1] with none). */
    lower: zod.number().min(0).max(1),
    upper: zod.number().min(0).max(1),
    /** pass^k: the chance that k trials in a row all pass, estimated as C(passed, k) / C(usable, k); null with fewer than k usable trials. */
    passHatK: zod.number().min(0).max(1).nullable(),
  }),
)

/** One fork a verification ran. */
export const TrialSchema = lazySchema(() =>
  zod.strictObject({
    /**
     * `patched` and `control`: forks of the verified run with and without the patch; `regress` and
     * `regress-control`: a past good run re-run with and without the patch.
     */
    arm: zod.enum(['patched', 'control', 'regress', 'regress-control']),
    /** The run the fork was made from: the verified run, or a past good run for `regress` and `regress-control`. */
    from: RunIdSchema,
    /** The fork's id, when it was stored. */
    runId: RunIdSchema.nullable(),
    outcome: TrialOutcomeSchema,
    /** Why it failed or errored, in one line. */
    reason: zod.string().optional(),
    costUsd: zod.number().nonnegative().nullable(),
  }),
)

/** What `verify` concluded about one fix. */
export const VerificationSchema = lazySchema(() =>
  zod.strictObject({
    verdict: VerdictSchema,
    /** The verdict's reason, in one sentence. */
    reason: zod.string(),
    /** The budget: the most trials an arm could run (trials stop earlier once the verdict is decided). */
    k: zod.number().int().positive(),
    /** The step the forks went live from. */
    atStep: zod.number().int().nonnegative(),
    patched: ArmStatsSchema,
    /** Null with `--no-control`. */
    control: ArmStatsSchema.nullable(),
    trials: zod.array(TrialSchema),
    /** The cost of every fork that could be priced, in USD. */
    costUsd: zod.number().nonnegative(),
    /**
     * Why the trials stopped before the budget ran out: `decided` once the verdict was decided at the
     * error rate, `max-cost` at the cost stop. Null when the budget (or a fixed plan) ran out.
     */
    stopped: zod.enum(['max-cost', 'decided']).nullable(),
    /** The highest wealth of the bet that the patch beats the control: VERIFIED needs 1/α (20). Absent from verifications stored by earlier versions. */
    evidence: zod.number().nonnegative().optional(),
    /** The k of each arm's pass^k: 5, or the budget when smaller. Absent: `k` (earlier versions). */
    passK: zod.number().int().positive().optional(),
    /** Whether the trials were planned as a fixed k per arm (a sharded run) rather than run until decided. */
    fixedK: zod.boolean().optional(),
    createdAt: InstantSchema,
  }),
)

export const FixProposalSchema = lazySchema(() =>
  zod.strictObject({
    id: zod.string(),
    rank: zod.number().int().positive(),
    patch: JsonSchema,
    rationale: zod.string(),
    expectedEffect: zod.string(),
    /** The latest verification of this fix (`crashlab verify`). */
    verification: VerificationSchema.optional(),
  }),
)

/** One redaction applied before writing: where (a JSON Pointer into the written document) and which rule. */
export const RunRedactionRecordSchema = lazySchema(() =>
  zod.strictObject({
    path: zod.string(),
    rule: zod.string(),
  }),
)

export const RedactionInfoSchema = lazySchema(() =>
  zod.strictObject({
    status: zod.enum(['none', 'redacted', 'partial']),
    records: zod.array(RunRedactionRecordSchema),
  }),
)

export const RunSchema = lazySchema(() =>
  zod
    .strictObject({
      id: RunIdSchema,
      name: zod.string(),
      tags: zod.array(zod.string()),
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
      gitSha: zod.string().nullable(),
      links: RunLinksSchema,
      steps: zod.array(StepSchema),
      checks: zod.array(CheckResultSchema),
      findings: zod.array(FindingSchema),
      diagnosis: DiagnosisSchema.nullable(),
      fixes: zod.array(FixProposalSchema),
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
        for (const issue of stepNumberingIssues(steps)) ctx.addIssue({ code: 'custom', ...issue })
      },
      { when: (payload) => typeof payload.value === 'object' && payload.value !== null },
    ),
)

/**
 * The cross-step rule of a run: step `i` says `index: i`. Checked on steps that may be only partly
 * valid (a non-number index is the step schema's to report). Internal: the run schema and the
 * cassette loader, which validates long step lists one step at a time, share it.
 *
 * @example
 * stepNumberingIssues([{ index: 0 }, { index: 2 }]) // [{ path: ['steps', 1, 'index'], message: 'step 1 says …' }]
 */
export function stepNumberingIssues(
  steps: readonly unknown[],
): Array<{ path: Array<string | number>; message: string }> {
  const out: Array<{ path: Array<string | number>; message: string }> = []
  for (let i = 0; i < steps.length; i++) {
    const index: unknown = (steps[i] as { index?: unknown } | null)?.index
    if (typeof index === 'number' && index !== i) {
      out.push({
        path: ['steps', i, 'index'],
        message: `step ${i} says it is step ${index}: steps are numbered from 0 in order`,
      })
    }
  }
  return out
}

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
export type Verdict = z.infer<typeof VerdictSchema>
export type TrialOutcome = z.infer<typeof TrialOutcomeSchema>
export type ArmStats = z.infer<typeof ArmStatsSchema>
export type Trial = z.infer<typeof TrialSchema>
export type Verification = z.infer<typeof VerificationSchema>
export type RunRedactionRecord = z.infer<typeof RunRedactionRecordSchema>
export type RedactionInfo = z.infer<typeof RedactionInfoSchema>
export type Run = z.infer<typeof RunSchema>
