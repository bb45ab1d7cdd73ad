/**
 * The diagnoser bench (`crashlab bench`): the tuning set's agents and the held-out set's on the scripted provider, faults
 * injected with a known ground truth, the diagnosers scored with Wilson intervals, and a hand-labelled
 * evaluation set scorer.
 */
export { BENCH_AGENTS, calendarAssistantAgent, flightRebookerAgent, refundBotAgent } from './agents/index.ts'
export { BENCH_ENTRY_POINT, type BenchEntryInput, benchAgentEntry, withOutage } from './entry.ts'
export {
  CLAIMED_SUCCESS,
  episodeSetup,
  HTML_502_VARIANTS,
  type Injection,
  type RunEpisodeOptions,
  runEpisode,
} from './faults.ts'
export {
  LabelEntrySchema,
  type LabelledRun,
  type LabelledScore,
  LabelsFileSchema,
  loadLabelledSet,
  scoreLabelledSet,
  scoreLabelledSetBy,
} from './labelled-set.ts'
export { type BenchOptions, type BenchReport, type BenchRun, runBench } from './run-bench.ts'
export {
  confusion,
  formatShare,
  labelCorrect,
  type ScoreCell,
  type ScoredEpisode,
  type Share,
  scoreEpisodes,
  share,
  stepCorrect,
} from './score.ts'
export {
  type AgentRunInput,
  type BenchAgent,
  type Episode,
  FAULT_KINDS,
  type FaultKind,
  type GroundTruth,
  type ToolDef,
} from './types.ts'
export { type FixOutcome, verifyEpisodeFix } from './verify-fixes.ts'
