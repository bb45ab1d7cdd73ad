import type { z } from 'zod'
import { JsonSchema } from '../../case/schema/json.ts'
import { FinishReasonSchema } from '../../case/schema/normalized.ts'
import { toValidationIssues } from '../../case/validation-issues.ts'
import { formatIssues } from '../../errors.ts'
import { lazySchema, zod } from '../../lazy-zod.ts'
import type { Fault, ScriptedFaultTurn, ScriptedReply, ScriptedTurn } from '../types.ts'

/**
 * Turns are checked strictly, because a typo (`tool_calls` for `toolCalls`, `retry_after`) would
 * otherwise serve an empty answer and the test would fail far from its cause. The types in `types.ts`
 * are written by hand for their JSDoc; the assertions at the bottom keep both in step.
 */
const millis = lazySchema(() => zod.number().finite().nonnegative())

const FaultSchema = lazySchema(() =>
  zod.discriminatedUnion('type', [
    zod.strictObject({ type: zod.literal('rate_limit'), retryAfter: millis.optional() }),
    zod.strictObject({
      type: zod.literal('server_error'),
      status: zod.union([zod.literal(500), zod.literal(502), zod.literal(503)]).optional(),
    }),
    zod.strictObject({ type: zod.literal('timeout'), afterMs: millis.optional() }),
    zod.strictObject({ type: zod.literal('reset') }),
    zod.strictObject({ type: zod.literal('cut_stream'), afterEvents: zod.number().int().nonnegative() }),
    zod.strictObject({ type: zod.literal('malformed_json') }),
  ]),
)

const replyShape = lazySchema(() => ({
  text: zod.string().optional(),
  toolCalls: zod
    .array(
      zod.strictObject({ name: zod.string().min(1), args: JsonSchema, id: zod.string().min(1).optional() }),
    )
    .optional(),
  reasoning: zod.string().optional(),
  finishReason: FinishReasonSchema.optional(),
  usage: zod
    .strictObject({
      inputTokens: zod.number().int().nonnegative().optional(),
      outputTokens: zod.number().int().nonnegative().optional(),
      cachedTokens: zod.number().int().nonnegative().optional(),
      reasoningTokens: zod.number().int().nonnegative().optional(),
    })
    .optional(),
  model: zod.string().min(1).optional(),
  delayMs: millis.optional(),
  chunkDelayMs: millis.optional(),
  chunkSize: zod.number().int().positive().optional(),
}))

const TurnSchema = lazySchema(() =>
  zod.union([zod.strictObject({ ...replyShape, fault: FaultSchema }), zod.strictObject(replyShape)]),
)

/**
 * Null when `turn` is a valid ScriptedTurn, else the problems, one per line, each with its path.
 *
 * @example
 * checkTurn({ text: 'hi' })                 // null
 * checkTurn({ tool_calls: [] })             // '  ✖ unknown field "tool_calls" …\n    → at $.tool_calls'
 */
export function checkTurn(turn: unknown): string | null {
  if (typeof turn !== 'object' || turn === null || Array.isArray(turn)) {
    return `  ✖ a turn must be an object such as { text: '…' } or { fault: { type: 'rate_limit' } }, got ${describe(turn)}`
  }
  // A union reports the issues of every branch; the branch the user meant is the one with `fault` or not.
  const schema = 'fault' in turn ? TurnSchema.options[0] : TurnSchema.options[1]
  const result = schema.safeParse(turn)
  if (result.success) return null
  const issues = toValidationIssues(result.error.issues, {
    unknownKey: (key) =>
      `unknown field "${key}": a turn has text, toolCalls, reasoning, finishReason, usage, model, delayMs, chunkDelayMs, chunkSize and fault`,
  })
  return formatIssues(issues)
}

/**
 * True when the turn is a fault rather than a reply.
 *
 * @example
 * isFaultTurn({ fault: { type: 'reset' } }) // true
 */
export function isFaultTurn(turn: ScriptedTurn): turn is ScriptedFaultTurn {
  return 'fault' in turn && turn.fault !== undefined
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'string' ? `the string ${JSON.stringify(value.slice(0, 40))}` : typeof value
}

// Compile-time checks that the schema and the public types describe the same shapes.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const faultsAgree: Same<z.infer<typeof FaultSchema>, Fault> = true
const repliesAgree: Same<z.infer<(typeof TurnSchema.options)[1]>, ScriptedReply> = true
void faultsAgree
void repliesAgree
