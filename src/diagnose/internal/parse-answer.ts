import type { z } from 'zod'
import { FailureLabelSchema } from '../../case/schema/run.ts'
import { lazySchema, zod } from '../../lazy-zod.ts'

const AnswerSchema = lazySchema(() =>
  zod.object({
    label: FailureLabelSchema,
    failing_step: zod.number().int().nonnegative().nullable().optional(),
    root_cause: zod.string().min(1),
    evidence: zod
      .array(zod.object({ step: zod.number().int().nonnegative(), quote: zod.string() }))
      .default([]),
  }),
)

/** What the diagnoser answered, read leniently (the JSON may sit in a code fence or prose). */
export type DiagnoserAnswer = z.infer<typeof AnswerSchema>

/** The first JSON object in `text` that reads as an answer, or null. */
export function parseAnswer(text: string): DiagnoserAnswer | null {
  const start = text.indexOf('{')
  const end = text.lastIndexOf('}')
  if (start < 0 || end <= start) return null
  try {
    const parsed = AnswerSchema.safeParse(JSON.parse(text.slice(start, end + 1)))
    return parsed.success ? parsed.data : null
  } catch {
    return null
  }
}
