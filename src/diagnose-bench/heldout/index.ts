/**
 * The held-out evaluation set of the run diagnoser: five agents in domains the diagnoser was never tuned
 * on, over three wire APIs, fifteen fault kinds with ground truth known by construction (recovered runs
 * included), and its scorer. Nothing under src/diagnose/ or src/fix/ may import it (test/architecture.test.ts).
 */
export {
  bankTransferAgent,
  HELDOUT_AGENTS,
  itHelpdeskAgent,
  pharmacyRefillAgent,
  visaCheckerAgent,
  warehouseInventoryAgent,
} from './agents/index.ts'
export { defineHeldoutAgent, type HeldoutAgentSpec } from './define-agent.ts'
export { heldoutGroundTruth, injectFault, runHeldoutEpisode, toolFailureOf } from './faults.ts'
export {
  type HeldoutBenchOptions,
  type HeldoutBenchReport,
  type HeldoutDiagnoser,
  runHeldoutBench,
} from './run-heldout.ts'
export { type HeldoutScore, type HeldoutScored, scoreHeldout } from './score-heldout.ts'
export {
  HELDOUT_FAULT_KINDS,
  type HeldoutAgent,
  type HeldoutEpisode,
  type HeldoutFaultKind,
  type HeldoutInjection,
  type HeldoutWorld,
  isRecoveredKind,
  type ToolFailure,
  type Wire,
} from './types.ts'
