import { AGENTCASE_FORMAT_NAME } from './schema.ts'

/**
 * Cheap detection of an AgentCase for tools that accept several file kinds (the CLI takes cassettes,
 * stored runs and `.agentcase` files): true when the root is an object whose `format_name` is
 * `agentcase`, whatever its version or validity. Validation is `parseAgentCase`'s job; this only
 * decides which reader to hand the file to, so that an AgentCase of a newer version still gets the
 * AgentCase reader's "unsupported version" message rather than "unknown file".
 *
 * @example
 * const value = JSON.parse(text)
 * if (looksLikeAgentCase(value)) run = fromAgentCase(parseAgentCase(text, { source: file }))
 */
export function looksLikeAgentCase(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    (value as Record<string, unknown>).format_name === AGENTCASE_FORMAT_NAME
  )
}

/**
 * The same test on raw text, for a caller that has not parsed it yet: an object that has the key
 * `format_name` with the value `agentcase` (any whitespace around the colon). It can be fooled by a
 * nested object with that key, which is fine for choosing a reader: the reader then says what is wrong.
 * A leading BOM is skipped so that such a file reaches the AgentCase reader and its BOM message.
 *
 * @example
 * isAgentCaseText(readFileSync(file, 'utf8')) // true for any .agentcase, valid or not
 */
export function isAgentCaseText(text: string): boolean {
  return /^[\s\uFEFF]*\{/.test(text) && /"format_name"\s*:\s*"agentcase"/.test(text)
}
