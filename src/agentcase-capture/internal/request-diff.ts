import type { JsonObject } from '../../case/schema/json.ts'
import { jsonPath } from '../../case/validation-issues.ts'
import { compare } from '../../diff/compare.ts'
import type { Difference, DiffMode } from '../../diff/difference.ts'
import { formatDifferences } from '../../diff/format-differences.ts'
import type { ValidationIssue } from '../../errors.ts'
import { copyJson } from './copy-json.ts'

/**
 * How a replayed request is matched with the recorded one: field by field, each difference located in
 * the case itself (`$.events[3].payload.input.prompt`), so the message points at the line of the file.
 * Identifiers (provider, model, tool name) must be equal; data is compared in the diff's `normalized`
 * mode, which forgives what platforms change (CRLF, surrounding whitespace, float rounding) and nothing
 * else. Envelope fields (ids, timestamps) are never compared: only the payload is the request.
 */

const EXACT_FIELDS = new Set(['provider', 'model', 'name', 'tool_name'])

/**
 * The differences between the fields `given` names and the same fields of the recorded payload. A
 * field given but not recorded is an `unexpected_key`; fields not given are not compared.
 *
 * @example
 * diffRequest(event.payload, { input: { prompt: 'hi' } }, 3, 1e-9)
 * // [{ path: '$.events[3].payload.input.prompt', kind: 'value_mismatch', expected: 'hello', actual: 'hi' }]
 */
export function diffRequest(
  recorded: JsonObject,
  given: Record<string, unknown>,
  sequence: number,
  floatTolerance: number | undefined,
): Difference[] {
  const out: Difference[] = []
  for (const key of Object.keys(given).sort()) {
    const { value } = copyJson(given[key])
    if (value === undefined) continue
    const at = jsonPath(['events', sequence, 'payload', key])
    if (!Object.hasOwn(recorded, key)) {
      out.push({ path: at, kind: 'unexpected_key', actual: value })
      continue
    }
    const mode: DiffMode = EXACT_FIELDS.has(key) ? 'exact' : 'normalized'
    const result = compare(recorded[key], value, {
      mode,
      ...(floatTolerance !== undefined && { floatTolerance }),
    })
    for (const d of result.differences) out.push({ ...d, path: at + d.path.slice(1) })
  }
  return out
}

/**
 * Differences as the `issues` of a CrashlabError and as the indented lines of its message.
 *
 * @example
 * const { issues, text } = renderDifferences(differences)
 */
export function renderDifferences(differences: readonly Difference[]): {
  issues: ValidationIssue[]
  text: string
} {
  return {
    issues: differences.map((d) => ({
      code: d.kind,
      path: d.path,
      message: formatDifferences([d], { maxValueLength: 200 }).trim(),
    })),
    text: formatDifferences(differences),
  }
}
