/**
 * Crash tests: faults, and the answers a model call or a tool call gets in place of the recording.
 */

export { type CrashMatrix, type CrashMatrixOptions, runCrashMatrix } from './crash-matrix.ts'
export {
  type CrashVariantContext,
  crashEntryOf,
  judgeCrashVariant,
  type ModuleEntryPoint,
  type PlayedCrashVariant,
  playCrashVariant,
  prepareCrashVariants,
  runCrashVariant,
} from './crash-variant.ts'
export {
  ALL_MCP_FAULTS,
  ALL_MODEL_FAULTS,
  ALL_TOOL_FAULTS,
  FAULT_KINDS,
  type Fault,
  type FaultKind,
  type FaultKindInfo,
  FaultSchema,
  faultLabel,
  isMcpFault,
  isModelFault,
  MCP_FAULT_KINDS,
  type McpFault,
  MODEL_FAULT_KINDS,
  type ModelFault,
  parseFault,
  parseFaultList,
  TOOL_FAULT_KINDS,
  type ToolFault,
} from './faults.ts'
export { type CrashCell, crashCells, faultInjection } from './inject.ts'
export { type CrashCellResult, type CrashOutcome, judgeVariant, type SurviveFn } from './judge.ts'
export { type McpFaultAnswer, mcpFaultAnswer } from './mcp-fault.ts'
export {
  CUT_CHUNK_BYTES,
  type ModelFaultAnswer,
  type ModelFaultContext,
  modelFaultAnswer,
} from './model-fault.ts'
export { renderCrashMatrix } from './render-matrix.ts'
export { gridCells, storedCrashCells } from './stored-cells.ts'
export {
  driftShape,
  type ToolFaultContext,
  type ToolFaultOutcome,
  ToolTimeoutError,
  toolFaultOutcome,
} from './tool-fault.ts'
