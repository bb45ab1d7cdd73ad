/**
 * Diagnosing a run: which step failed, a label, a one-sentence root cause and verbatim evidence, from one
 * LLM call (any OpenAI-compatible or Anthropic endpoint) or from rules (`heuristic`).
 */
export { type DiagnoseOptions, diagnose } from './diagnose.ts'
export { heuristicDiagnosis } from './heuristic.ts'
export { compactTrace, diagnoserPrompt } from './prompt.ts'
export { stepText } from './step-text.ts'
export { type EvidenceQuote, verifyEvidence } from './verify-evidence.ts'
