import { CrashlabError } from '../../../errors.ts'
import { clipText, quoteValue } from '../../internal/clip-text.ts'
import { AGENTCASE_FORMAT_NAME, AGENTCASE_SUPPORTED_VERSIONS } from '../schema.ts'

/**
 * The reader steps between "it is JSON" and the schema: the root is an object, it names itself
 * `agentcase`, its version is a string, and a version this reader knows. They run before the schema so
 * that a file of another format, or of a future version, gets a message about that rather than a wall of
 * schema issues.
 */

/**
 * Checks the root and the format header of a parsed case; returns the root as an object.
 *
 * @example
 * checkAgentCaseHeader(JSON.parse(text), 'run.agentcase')
 */
export function checkAgentCaseHeader(value: unknown, source: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CrashlabError(
      'E_AGENTCASE_NOT_OBJECT',
      `the root of ${source} is ${kindOf(value)}, not a JSON object. An .agentcase file holds one object with format_name "agentcase".`,
      { subject: source },
    )
  }
  const root = value as Record<string, unknown>
  if (root.format_name !== AGENTCASE_FORMAT_NAME) {
    const found = 'format_name' in root ? `format_name ${quoteValue(root.format_name)}` : 'no format_name'
    throw new CrashlabError(
      'E_AGENTCASE_FORMAT',
      `${source} has ${found}; an AgentCase has format_name "agentcase". Check that this is an .agentcase file (crashlab cassettes are read with loadCassette).`,
      { subject: source },
    )
  }
  const version = root.format_version
  if (typeof version !== 'string') {
    // A broken header, not an unsupported version: E_AGENTCASE_VERSION is kept for a well-formed version
    // string this reader does not know, so "upgrade crashlab" is only ever suggested when it can help.
    throw new CrashlabError(
      'E_AGENTCASE_FORMAT',
      `${source} has format_version ${'format_version' in root ? quoteValue(version) : 'missing'}; it must be a string such as "0.1". Fix the writer that produced the file.`,
      { subject: source },
    )
  }
  if (!(AGENTCASE_SUPPORTED_VERSIONS as readonly string[]).includes(version)) {
    throw new CrashlabError(
      'E_AGENTCASE_VERSION',
      `${source}: unsupported AgentCase format version '${clipText(version, 40)}'; supported: ${AGENTCASE_SUPPORTED_VERSIONS.join(', ')}. Upgrade crashlab if a newer release reads it, or re-export the case as AgentCase 0.1.`,
      { subject: source },
    )
  }
  return root
}

function kindOf(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'an array'
  return `a ${typeof v}`
}
