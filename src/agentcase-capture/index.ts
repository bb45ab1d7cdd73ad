/**
 * Explicit capture and mock replay: record an execution by hand into an AgentCase, replay the
 * application's own code against it with every model and tool answer served as data, and project a
 * case into its data-only mock replay artifact. See docs/capture.md.
 */
export { CAPTURE_EXTENSION, captureCase } from './explicit-capture.ts'
export { LOGICAL_FAILURE_KIND } from './internal/event-methods.ts'
export type {
  MockModelRequest,
  MockReplayContext,
  MockReplayResult,
  RecordedToolResult,
  RunMockReplayOptions,
} from './mock-replay-context.ts'
export type { ProjectMockReplayOptions } from './project-mock-replay.ts'
export { projectMockReplay } from './project-mock-replay.ts'
export { runMockReplay } from './run-mock-replay.ts'
export type {
  CaptureCaseOptions,
  CaptureCloseOptions,
  CaptureEventOptions,
  CaptureExceptionOptions,
  CaptureLogicalFailureOptions,
  CaptureMessage,
  CaptureModelRequest,
  CaptureModelResponse,
  CaptureRetry,
  CaptureToolCall,
  CaptureToolResult,
  ExplicitCapture,
} from './types.ts'
