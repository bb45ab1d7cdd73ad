/**
 * AgentCase 0.1 interop: read, validate and write the portable `.agentcase` artifact of the ReproAgent
 * reference, and convert between it and crashlab runs. See docs/agentcase.md.
 */

export { CRASHLAB_EXTENSION } from './crashlab-extension.ts'
export type { FromAgentCaseOptions } from './from-agent-case.ts'
export { fromAgentCase } from './from-agent-case.ts'
export { loadAgentCase } from './load-agent-case.ts'
export { isAgentCaseText, looksLikeAgentCase } from './looks-like-agent-case.ts'
export type { ParseAgentCaseOptions } from './parse-agent-case.ts'
export { parseAgentCase } from './parse-agent-case.ts'
export type {
  AgentCase,
  AgentCaseCaptureStatus,
  AgentCaseCompleteness,
  AgentCaseDeterminism,
  AgentCaseEvent,
  AgentCaseEventType,
  AgentCaseIntegrationInfo,
  AgentCaseMetadata,
  AgentCaseModelInfo,
  AgentCaseOutcome,
  AgentCasePlatform,
  AgentCaseProviderInfo,
  AgentCaseRedaction,
  AgentCaseRedactionRecord,
  AgentCaseRedactionStatus,
  AgentCaseReplay,
  AgentCaseReplayMode,
  AgentCaseRuntime,
} from './schema.ts'
export {
  AGENTCASE_FORMAT_NAME,
  AGENTCASE_MAX_BYTES,
  AGENTCASE_SUPPORTED_VERSIONS,
  AGENTCASE_VERSION,
  AgentCaseEventSchema,
  AgentCaseSchema,
} from './schema.ts'
export { serializeAgentCase } from './serialize-agent-case.ts'
export type { ToAgentCaseOptions } from './to-agent-case.ts'
export { toAgentCase } from './to-agent-case.ts'
export type { ValidateAgentCaseOptions } from './validate-agent-case.ts'
export { validateAgentCase } from './validate-agent-case.ts'
export { validateAgentCasePayloads } from './validate-agent-case-payloads.ts'
export type { WriteAgentCaseOptions } from './write-agent-case.ts'
export { writeAgentCase } from './write-agent-case.ts'
