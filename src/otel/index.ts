/**
 * OpenTelemetry traces as runs: OTLP JSON (one export document or JSON Lines) read into spans, and the
 * spans of each agent trace (GenAI semantic conventions, the AI SDK's `ai.*` spans, OpenInference)
 * turned into a crashlab run; and spans written back as OTLP JSON. See docs/otel.md.
 */

export type { Convention } from './internal/found-spans.ts'
export { toOtlpJson } from './internal/otlp-json-write.ts'
export { readAgentsTrace } from './read-agents-trace.ts'
export { type OtlpSpan, type OtlpSpanEvent, readOtlp } from './read-otlp.ts'
export { type ImportedTrace, tracesToRuns } from './traces-to-runs.ts'
