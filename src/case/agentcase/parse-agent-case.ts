import { decodeAgentCaseJson } from './internal/decode-json.ts'
import { AGENTCASE_MAX_BYTES, type AgentCase } from './schema.ts'
import { validateAgentCase } from './validate-agent-case.ts'

/**
 * Options of `parseAgentCase` and `loadAgentCase`.
 *
 * @example
 * parseAgentCase(text, { source: 'run.agentcase', maxBytes: 1_000_000 })
 */
export interface ParseAgentCaseOptions {
  /** The size bound in bytes, checked before parsing; the format's 16 MiB (16,777,216) by default. */
  maxBytes?: number
  /** The file name, for messages. */
  source?: string
}

/**
 * Reads an `.agentcase` document strictly, in the reader order of the format, each step with its own
 * code: size (E_AGENTCASE_TOO_LARGE) → UTF-8 (E_AGENTCASE_ENCODING) → JSON, a BOM included
 * (E_AGENTCASE_MALFORMED) → root object (E_AGENTCASE_NOT_OBJECT) → format name and a string version
 * (E_AGENTCASE_FORMAT) → supported version (E_AGENTCASE_VERSION) → strict schema (E_AGENTCASE_INVALID)
 * → redaction and replay rules (E_AGENTCASE_REDACTION, E_AGENTCASE_REPLAY) → unique event ids
 * (E_AGENTCASE_DUPLICATE_EVENT_ID) → sequences (E_AGENTCASE_SEQUENCE) → parents
 * (E_AGENTCASE_PARENT_MISSING, E_AGENTCASE_PARENT_ORDER).
 *
 * @example
 * const c = parseAgentCase(readFileSync('failure.agentcase'), { source: 'failure.agentcase' })
 * c.events.filter((e) => e.event_type === 'tool.call')
 */
export function parseAgentCase(input: string | Uint8Array, options: ParseAgentCaseOptions = {}): AgentCase {
  const source = options.source ?? 'AgentCase input'
  const value = decodeAgentCaseJson(input, { maxBytes: options.maxBytes ?? AGENTCASE_MAX_BYTES, source })
  return validateAgentCase(value, { source })
}
