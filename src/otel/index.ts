/**
 * OpenTelemetry traces as runs: OTLP JSON (one export document or JSON Lines) read into spans, and the
 * spans of each agent trace (GenAI semantic conventions, the AI SDK's `ai.*` spans, OpenInference)
 * turned into a crashlab run; and spans written back as OTLP JSON. See docs/otel.md.
 */

export { type ExportOtlpHttpOptions, exportRunsOtlpHttp } from './export-otlp-http.ts'
export type { Convention } from './internal/found-spans.ts'
export { toOtlpJson } from './internal/otlp-json-write.ts'
export { type OtlpReceiver, type OtlpReceiverOptions, startOtlpReceiver } from './otlp-receiver.ts'
export { readAgentsTrace } from './read-agents-trace.ts'
export { type OtlpSpan, type OtlpSpanEvent, readOtlp } from './read-otlp.ts'
export { type ExportTraceServiceRequest, type RunsToOtlpOptions, runsToOtlp } from './run-to-otlp.ts'
export { type ImportedTrace, tracesToRuns } from './traces-to-runs.ts'
