/**
 * `crashlab/otel`: capturing agent runs in production from the app's own OpenTelemetry traces. A span
 * processor, added to the app's tracer provider, turns each agent trace (GenAI conventions, the AI
 * SDK's telemetry, OpenInference) into a run in the local store, or appends it to an OTLP JSON Lines
 * file, redacted. See docs/otel.md.
 *
 * @example
 * import { CrashlabSpanProcessor } from 'crashlab/otel'
 * const processor = new CrashlabSpanProcessor({ store: '.crashlab' })
 */
export {
  CrashlabSpanProcessor,
  type CrashlabSpanProcessorOptions,
} from './crashlab-span-processor.ts'
export type { HrTime, ReadableSpanLike, SpanContextLike } from './internal/span-shape.ts'
