import { createRun } from '../../case/create-run.ts'
import { EntryPointSchema, type Run, type RunRedactionRecord } from '../../case/schema/run.ts'
import { type Step, StepSchema } from '../../case/schema/step.ts'
import { priceRun } from '../../cost/price-run.ts'
import type { Writer } from './process-alive.ts'

/** The first line of a journal. */
export interface JournalHead extends Partial<Writer> {
  t: 'init'
  v: number
  id: string
  name: string
  input: unknown
  startedAt: string
  entryPoint: unknown
  redacted?: RunRedactionRecord[]
}

/**
 * The journal's text split into its head and the complete step lines that parse and match the step
 * schema. A torn last line (the process died while writing it) is dropped, and so is anything after
 * the first line that does not read: what a reader gets is always a prefix of what was appended.
 *
 * @example
 * const parsed = parseJournal(readFileSync(path, 'utf8'))
 * if (parsed) console.log(parsed.head.name, parsed.steps.length)
 */
export function parseJournal(
  text: string,
): { head: JournalHead; steps: Step[]; records: RunRedactionRecord[] } | null {
  const lines = text.split('\n')
  // After the last newline: '' when the last line was written whole, else a torn line.
  lines.pop()
  const head = parseLine(lines[0])
  if (!isHead(head)) return null
  const steps: Step[] = []
  const records: RunRedactionRecord[] = []
  for (const r of head.redacted ?? []) records.push({ path: `/run/input${r.path}`, rule: r.rule })
  for (const line of lines.slice(1)) {
    const value = parseLine(line) as { t?: unknown; step?: unknown; redacted?: unknown } | undefined
    if (value?.t !== 'step') break
    const index = steps.length
    const parsed = StepSchema.safeParse({ ...(value.step as object), index })
    if (!parsed.success) break
    steps.push(parsed.data)
    for (const r of Array.isArray(value.redacted) ? (value.redacted as RunRedactionRecord[]) : []) {
      if (typeof r?.path === 'string' && typeof r.rule === 'string')
        records.push({ path: `/run/steps/${index}${r.path}`, rule: r.rule })
    }
  }
  return { head, steps, records }
}

/**
 * The run a journal describes, as far as it got: status `incomplete`, completeness `interrupted`, no
 * end time, usage and cost summed from its steps. The steps were redacted when journaled, so the
 * run's redaction records say so.
 *
 * @example
 * store.save(runFromJournal(parseJournal(text)!))
 */
export function runFromJournal(journal: NonNullable<ReturnType<typeof parseJournal>>): Run {
  const { head, steps, records } = journal
  const entry = EntryPointSchema.safeParse(head.entryPoint)
  const started = new Date(head.startedAt)
  const run = createRun({
    id: head.id,
    name: head.name,
    input: (head.input ?? null) as Run['input'],
    entryPoint: entry.success ? entry.data : null,
    startedAt: Number.isNaN(started.getTime()) ? new Date() : started,
  })
  run.steps = steps
  run.completeness = 'interrupted'
  for (const step of steps) {
    if (step.type === 'tool') run.usage.toolCalls++
    if (step.type !== 'llm') continue
    run.usage.llmCalls++
    const u = step.response?.normalized?.usage
    if (!u) continue
    run.usage.inputTokens += u.inputTokens
    run.usage.outputTokens += u.outputTokens
    run.usage.cachedTokens += u.cachedTokens ?? 0
    run.usage.reasoningTokens += u.reasoningTokens ?? 0
  }
  if (records.length > 0) run.redaction = { status: 'redacted', records }
  return priceRun(run)
}

function parseLine(line: string | undefined): unknown {
  if (!line) return undefined
  try {
    return JSON.parse(line)
  } catch {
    return undefined
  }
}

function isHead(value: unknown): value is JournalHead {
  const v = value as Partial<JournalHead> | undefined
  return (
    v?.t === 'init' &&
    typeof v.id === 'string' &&
    typeof v.name === 'string' &&
    typeof v.startedAt === 'string'
  )
}
