import type { NormalizedRequest } from '../case/schema/normalized.ts'
import type { Diagnosis, Run } from '../case/schema/run.ts'
import { compactTrace } from '../diagnose/prompt.ts'
import { PATCH_KINDS } from '../patches/patch-kinds.ts'

/** One example of each kind a fix may use (never the test-only `tool_result`). */
const EXAMPLES: Record<string, unknown> = {
  system_prompt: { kind: 'system_prompt', op: 'append', text: 'Never refund more than the order total.' },
  tool_description: {
    kind: 'tool_description',
    tool: 'TOOL_NAME',
    op: 'append',
    text: 'The amount must not exceed the total returned by the lookup.',
  },
  tool_schema: {
    kind: 'tool_schema',
    tool: 'TOOL_NAME',
    op: 'merge',
    parameters: { properties: { amount: { minimum: 0 } } },
  },
  message: {
    kind: 'message',
    op: 'substitute',
    role: 'user',
    index: 0,
    find: 'old words',
    replace: 'new words',
  },
  inject_message: { kind: 'inject_message', role: 'user', text: 'Check the tool results before acting.' },
  model_params: { kind: 'model_params', params: { temperature: 0 } },
}

/**
 * The LLM request a fix is shown against and forked at: the last model call at or before the failing
 * step (the one that decided it), else the first after it, else the run's first.
 *
 * @example
 * requestAt(run, run.diagnosis?.failingStep ?? null)?.step // 2: the model call that asked for the bad refund at step 3
 */
export function requestAt(
  run: Run,
  step: number | null,
): { step: number; request: NormalizedRequest } | null {
  const llm = run.steps.flatMap((s) =>
    s.type === 'llm' && s.request.normalized ? [{ step: s.index, request: s.request.normalized }] : [],
  )
  if (step !== null) {
    // The model call that led to the failing step: the last one at or before it (a bad tool call is
    // decided by the model call before it), else the first one after it.
    const before = llm.filter((r) => r.step <= step).at(-1)
    if (before) return before
    const after = llm.find((r) => r.step > step)
    if (after) return after
  }
  return llm[0] ?? null
}

/**
 * The system and user messages of the fixer's one call.
 *
 * @example
 * const { system, user } = fixerPrompt(run, run.diagnosis)
 */
export function fixerPrompt(run: Run, diagnosis: Diagnosis): { system: string; user: string } {
  const kinds = Object.entries(PATCH_KINDS)
    .filter(([, info]) => !info.testOnly)
    .map(([kind, info]) => `- ${kind}: ${info.summary}. Example: ${JSON.stringify(EXAMPLES[kind])}`)
  const system = [
    'You fix failed runs of AI agents. You get the diagnosis of one run, its trace, and the model request where it went wrong.',
    'Propose 1 to 3 fixes, the most likely to work first. Each fix is one typed patch to the model request (the prompt, a tool description or schema, the messages, or the model parameters).',
    'Patch kinds (a `compose` patch {"kind":"compose","patches":[...]} applies up to 3 of them in order):',
    ...kinds,
    'Text edits (system_prompt, tool_description) take op replace, append, prepend, insert (with "after" or "before": a whole line of the current text), replace_line/delete_line (with "line"), substitute (with "find" and "replace").',
    "Rules: a fix must change what the agent does, never what a tool returned (no tool_result patch); it must target a line, tool or message that exists in the request below; it must be small; and it must be general: never write this run's data (order ids, amounts, emails) into it.",
    'Answer with one JSON object and nothing else:',
    '{"fixes": [{"patch": {...}, "rationale": "why this fixes the root cause, one sentence", "expected_effect": "what the agent will do differently, one sentence"}]}',
  ].join('\n')
  const at = requestAt(run, diagnosis.failingStep)
  const request = at
    ? [
        `The model request of step ${at.step}:`,
        `System prompt: ${JSON.stringify((at.request.system ?? []).map((p) => ('text' in p ? p.text : '')).join('\n'))}`,
        `Tools: ${JSON.stringify((at.request.tools ?? []).map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })))}`,
      ].join('\n')
    : 'The run has no model request with a normalized form.'
  const user = [
    `Agent: ${run.name}. Status: ${run.status}. Outcome: ${run.outcome}.`,
    `Diagnosis: ${diagnosis.label}${diagnosis.failingStep === null ? '' : ` at step ${diagnosis.failingStep}`}: ${diagnosis.rootCause}`,
    ...diagnosis.evidence.map((e) => `- evidence, step ${e.step}: ${JSON.stringify(e.quote)}`),
    '',
    request,
    '',
    'Trace:',
    compactTrace(run),
  ].join('\n')
  return { system, user }
}
