import type { Run } from '../case/schema/run.ts'
import { FailureLabelSchema } from '../case/schema/run.ts'
import { stepText } from './step-text.ts'

const STEP_CHARS = 1200
const TRACE_CHARS = 60_000

/**
 * The trace the diagnoser reads: one block per step (its index, kind and what it says, cut to a length),
 * the whole cut to fit one prompt, keeping the first and the last steps when the run is long.
 */
export function compactTrace(run: Run): string {
  const blocks = run.steps.map((s) => {
    const head =
      s.type === 'tool'
        ? `tool ${s.name}${s.mcp ? ` (mcp: ${s.mcp.server})` : ''}`
        : s.type === 'http'
          ? `http ${s.label}`
          : `llm ${s.provider}`
    const text = stepText(s)
    return `[step ${s.index}] ${head}\n${text.length > STEP_CHARS ? `${text.slice(0, STEP_CHARS)} …(cut)` : text}`
  })
  let total = blocks.reduce((n, b) => n + b.length, 0)
  if (total <= TRACE_CHARS) return blocks.join('\n\n')
  const kept = [...blocks]
  // Drop from the middle: the start says what was asked, the end how it failed.
  let middle = Math.floor(kept.length / 2)
  let dropped = 0
  while (total > TRACE_CHARS && kept.length > 2) {
    const [removed] = kept.splice(middle, 1)
    total -= removed?.length ?? 0
    dropped++
    middle = Math.min(middle, kept.length - 1)
  }
  kept.splice(middle, 0, `[… ${dropped} steps left out …]`)
  return kept.join('\n\n')
}

/** The system and user messages of the diagnoser's one call. */
export function diagnoserPrompt(run: Run): { system: string; user: string } {
  const system = [
    'You diagnose failed runs of AI agents. You get the trace of one run, step by step, and the checks and findings crashlab recorded as hints.',
    'Answer with one JSON object and nothing else:',
    '{"label": one of ' + FailureLabelSchema.options.map((l) => JSON.stringify(l)).join(', ') + ',',
    ' "failing_step": the index of the first step that went wrong, or null,',
    ' "root_cause": one sentence,',
    ' "evidence": [{"step": index, "quote": "a short VERBATIM piece of that step\'s text"}]}',
    'Quote only text that appears exactly in the step you cite: every quote is checked, and an answer without a valid quote counts as UNKNOWN.',
  ].join('\n')
  const checks = run.checks.map(
    (c) => `- check ${c.name}: ${c.passed ? 'passed' : `FAILED${c.message ? ` (${c.message})` : ''}`}`,
  )
  const findings = run.findings.map(
    (f) => `- finding ${f.kind} (${f.severity}) at step ${f.steps.join(', ')}: ${f.message}`,
  )
  const user = [
    `Agent: ${run.name}. Status: ${run.status}${run.error ? ` (${run.error.name}: ${run.error.message})` : ''}. Outcome: ${run.outcome}.`,
    `Input: ${JSON.stringify(run.input)}`,
    checks.length ? `Checks:\n${checks.join('\n')}` : 'Checks: none',
    findings.length ? `Findings:\n${findings.join('\n')}` : 'Findings: none',
    '',
    'Trace:',
    compactTrace(run),
  ].join('\n')
  return { system, user }
}
