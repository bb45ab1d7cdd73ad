import type { Run } from '../../../case/schema/run.ts'
import type { Step } from '../../../case/schema/step.ts'
import type { FindingLog } from './finding-log.ts'
import type { TrackedCall, TrackedResult } from './tool-call-tracker.ts'

/** What a detector sees of the step being observed. */
export interface StepContext {
  step: Step
  /** The run the step belongs to: only its fields before `steps` are read (steps may still be arriving). */
  run: Run
  log: FindingLog
}

/**
 * One runtime detector: a small state machine fed step by step. Each hook may open findings in the log
 * or grow and escalate its own; none may look at steps other than the one it is given, so the full pass
 * and the live one see the same thing. One implementation per file in this folder.
 */
export interface Detector {
  /** Every step, before its tool events. */
  onStep?(ctx: StepContext): void
  /** A tool result, as the step shows it (results come before calls within a step). */
  onToolResult?(result: TrackedResult, ctx: StepContext): void
  /** A tool call, the first time it is seen. */
  onToolCall?(call: TrackedCall, ctx: StepContext): void
}
