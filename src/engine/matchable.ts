import { canonicalStringify } from '../case/canonical-json.ts'
import type { NormalizedRequest } from '../case/schema/normalized.ts'
import { redactDocument } from '../redact/redact-document.ts'
import type { Redactor } from '../redact/types.ts'

/**
 * A normalized request as it is matched at replay: redacted (a secret in a prompt never breaks
 * matching, and a diff never prints one), and with tool results that are JSON written canonically.
 * The second is needed because a replayed tool returns its result as loaded from the cassette, whose
 * keys are sorted: the agent then sends `{"id":…,"status":…}` where it once sent `{"status":…,"id":…}`,
 * which is the same result.
 *
 * @example
 * requestHash({ method, url, headers, normalized: matchable(normalized) })
 */
export function matchable(normalized: NormalizedRequest, redactor?: Redactor): NormalizedRequest {
  const redacted = redactDocument(normalized, { redactor }).value
  let changed = false
  const messages = redacted.messages.map((message) => {
    if (!message.parts.some((p) => p.type === 'tool_result')) return message
    const parts = message.parts.map((part) => {
      if (part.type !== 'tool_result') return part
      const content = canonicalJson(part.content)
      if (content === part.content) return part
      changed = true
      return { ...part, content }
    })
    return { ...message, parts }
  })
  return changed ? { ...redacted, messages } : redacted
}

function canonicalJson(text: string): string {
  if (!/^\s*[[{]/.test(text)) return text
  try {
    return canonicalStringify(JSON.parse(text))
  } catch {
    return text
  }
}
