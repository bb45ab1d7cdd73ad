import { z } from 'zod'
import { JsonSchema } from '../../case/schema/json.ts'
import { FinishReasonSchema } from '../../case/schema/normalized.ts'
import { toValidationIssues } from '../../case/validation-issues.ts'
import { formatIssues } from '../../errors.ts'
import type { Fault, ScriptedFaultTurn, ScriptedReply, ScriptedTurn } from '../types.ts'

/**
 * Turns are checked strictly, because a typo (`tool_calls` for `toolCalls`, `retry_after`) would
 * otherwise serve an empty answer and the test would fail far from its cause. The types in `types.ts`
 * are written by hand for their JSDoc; the assertions at the bottom keep both in step.
 */
const millis = z.number().finite().nonnegative()

const FaultSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('rate_limit'), retryAfter: millis.optional() }),
  z.strictObject({
    type: z.literal('server_error'),
    status: z.union([z.literal(500), z.literal(502), z.literal(503)]).optional(),
  }),
  z.strictObject({ type: z.literal('timeout'), afterMs: millis.optional() }),
  z.strictObject({ type: z.literal('reset') }),
  z.strictObject({ type: z.literal('cut_stream'), afterEvents: z.number().int().nonnegative() }),
  z.strictObject({ type: z.literal('malformed_json') }),
])

const replyShape = {
  text: z.string().optional(),
  toolCalls: z
    .array(z.strictObject({ name: z.string().min(1), args: JsonSchema, id: z.string().min(1).optional() }))
    .optional(),
  reasoning: z.string().optional(),
  finishReason: FinishReasonSchema.optional(),
  usage: z
    .strictObject({
      inputTokens: z.number().int().nonnegative().optional(),
      outputTokens: z.number().int().nonnegative().optional(),
      cachedTokens: z.number().int().nonnegative().optional(),
      reasoningTokens: z.number().int().nonnegative().optional(),
    })
    .optional(),
  model: z.string().min(1).optional(),
  delayMs: millis.optional(),
  chunkDelayMs: millis.optional(),
  chunkSize: z.number().int().positive().optional(),
}

const TurnSchema = z.union([
  z.strictObject({ ...replyShape, fault: FaultSchema }),
  z.strictObject(replyShape),
])

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
