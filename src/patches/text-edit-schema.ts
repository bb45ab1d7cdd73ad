import type { z } from 'zod'
import { lazySchema, zod } from '../lazy-zod.ts'

/**
 * The edits a patch can make to a piece of text (a system prompt, a tool's description). Line edits
 * compare a line with surrounding whitespace trimmed, so a line copied from `crashlab show` matches
 * whatever its indentation; `substitute` matches the literal text, never a regular expression, so a
 * patch file means the same thing on every machine.
 *
 * @example
 * TEXT_EDIT_OPS.includes('replace_line') // true
 */
export const TEXT_EDIT_OPS = [
  'replace',
  'append',
  'prepend',
  'insert',
  'replace_line',
  'delete_line',
  'substitute',
] as const

/**
 * A patch's optional scope. Every condition given must hold; a patch out of scope leaves the request
 * alone (`changed: false`). In a multi-agent run, `agent` needs the caller to say which agent sent the
 * request; `systemContains` needs nothing but the request itself.
 *
 * @example
 * PatchScopeSchema.parse({ systemContains: 'You are the Triage Agent' })
 */
export const PatchScopeSchema = lazySchema(() =>
  zod
    .strictObject({
      /** The agent that sends the request (the `agent` of `applyPatch`'s context). */
      agent: zod.string().min(1).optional(),
      /** Text the request's system prompt contains. */
      systemContains: zod.string().min(1).optional(),
      /** The first step (index in `run.steps`) the patch applies to. */
      fromStep: zod.number().int().nonnegative().optional(),
      /** The last step the patch applies to. */
      toStep: zod.number().int().nonnegative().optional(),
    })
    .refine((w) => Object.keys(w).length > 0, {
      message: '`when` is empty: give agent, systemContains, fromStep or toStep, or leave `when` out',
    }),
)

const line = lazySchema(() =>
  zod
    .string()
    .refine(
      (s) => s.trim() !== '',
      'the line to match is empty: copy the whole line as it appears in the prompt',
    ),
)

/**
 * The variants of a text edit for one patch kind: each carries the kind's literal and its own fields,
 * so the union of all patches discriminates on `kind`, then on `op`.
 *
 * @example
 * zod.discriminatedUnion('op', textEditVariants('system_prompt', {}))
 */
export function textEditVariants<const K extends string, S extends z.ZodRawShape>(kind: K, shape: S) {
  const base = { kind: zod.literal(kind), ...shape }
  const when = { when: PatchScopeSchema.optional() }
  return [
    /** The whole text becomes `text`. */
    zod.strictObject({ ...base, op: zod.literal('replace'), text: zod.string(), ...when }),
    /** `text` becomes the last line(s). */
    zod.strictObject({ ...base, op: zod.literal('append'), text: zod.string().min(1), ...when }),
    /** `text` becomes the first line(s). */
    zod.strictObject({ ...base, op: zod.literal('prepend'), text: zod.string().min(1), ...when }),
    /** `text` goes in as new line(s) right after the line `after`, or right before the line `before`. */
    zod
      .strictObject({
        ...base,
        op: zod.literal('insert'),
        text: zod.string().min(1),
        after: line.optional(),
        before: line.optional(),
        ...when,
      })
      .refine((v) => anchors(v) === 1, {
        message: 'an insert names exactly one anchor line: give `after` or `before`, not both or neither',
        path: ['after'],
      }),
    /** Every line reading `line` becomes `text`. */
    zod.strictObject({ ...base, op: zod.literal('replace_line'), line, text: zod.string(), ...when }),
    /** Every line reading `line` goes. */
    zod.strictObject({ ...base, op: zod.literal('delete_line'), line, ...when }),
    /** Every occurrence of `find` becomes `replace` (only the first with `all: false`). */
    zod.strictObject({
      ...base,
      op: zod.literal('substitute'),
      find: zod.string().min(1, 'nothing to find: `find` is empty'),
      replace: zod.string(),
      all: zod.boolean().optional(),
      ...when,
    }),
  ] as const
}

/** How many of `after` and `before` an insert gives (zod's generic inference cannot see them here). */
function anchors(v: object): number {
  const { after, before } = v as { after?: string; before?: string }
  return Number(after !== undefined) + Number(before !== undefined)
}

/**
 * The error zod reports for an unknown `op`, listing the ops there are.
 *
 * @example
 * zod.discriminatedUnion('op', textEditVariants('system_prompt', {}), unknownOp)
 */
export const unknownOp = {
  error: () => `unknown op: expected one of ${TEXT_EDIT_OPS.join(', ')}`,
}

/** @example const when: PatchScope = { agent: 'triage', fromStep: 4 } */
export type PatchScope = z.infer<typeof PatchScopeSchema>
