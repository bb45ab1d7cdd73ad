import type { JsonValue } from '../../../case/schema/json.ts'
import { isErrorResult } from '../../failed-tool-call.ts'
import type { Detector, StepContext } from './detector.ts'
import { headQuote, tailQuote } from './quote.ts'
import type { TrackedResult } from './tool-call-tracker.ts'

/**
 * `suspicious_tool_result`: a tool result an agent should not trust as it is.
 *
 * - an HTML page or an HTTP error page (`error`): `<!doctype html`, `<html`, or a status line such as
 *   `502 Bad Gateway` at the start of the text (any result, failed or not: a gateway's page often comes
 *   back as an error message);
 * - an empty result (`warn`): empty or blank text, `null`, `{}`, `[]`, `""`;
 * - a truncated result (`warn`): text that opens like JSON but does not parse, or that ends with a
 *   truncation marker (`...`, `…`, `[truncated]`);
 * - a shape drift (`warn`): a result of another JSON type than the tool's first successful result, or
 *   an object missing top-level keys that the first one had (extra keys are fine: optional fields); one
 *   finding per tool and new shape. Results that say they are errors (`isErrorResult`: `{ "error": ... }`,
 *   `{ "isError": true }`) are left to `tool_error_streak`.
 *
 * Empty, truncated and drift look at results that did not fail. At most one finding per result: the
 * first that applies, in the order above.
 */

// Start of the text only: a page is recognizable by its first bytes, and the scan stays cheap.
const HEAD = 512
// An optional `"`: an agent that JSON-encodes a string result sends the page as a JSON string.
const HTML = /^\s*"?\s*(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)?<(?:!doctype\s+html|html|head|body)\b/i
const STATUS_PAGE =
  /^\s*"?(?:HTTP\/\d(?:\.\d)?\s+)?[45]\d\d\s+(?:Bad Gateway|Service (?:Temporarily )?Unavailable|Gateway Time-?out|Internal Server Error|Too Many Requests|Forbidden|Not Found|Unauthorized|Bad Request)\b/i
const TRUNCATED = /(?:\.\.\.|…|\[truncated\]|\(truncated\)|<truncated>)\s*$/i

interface Shape {
  /** `object`, `array`, `string`, ... */
  type: string
  /** An object's top-level keys. */
  keys: string[]
  /** The step and the result that set it, to quote. */
  step: number
  result: TrackedResult
}

/**
 * @example
 * const detector = suspiciousToolResult()
 */
export function suspiciousToolResult(): Detector {
  const shapes = new Map<string, Shape>()
  const drifts = new Set<string>()
  return {
    onToolResult(result: TrackedResult, ctx: StepContext) {
      if (result.blocked) return
      const name = result.call.name
      // JSON made from data starts with `{` or `[`: only a step's own text can be a page.
      const head = result.rawText ? result.text.slice(0, HEAD) : ''
      const html = HTML.test(head)
      if (html || STATUS_PAGE.test(head)) {
        ctx.log.open({
          kind: 'suspicious_tool_result',
          severity: 'error',
          steps: [result.step],
          message: `${name} returned ${html ? 'an HTML page' : 'an HTTP error page'} instead of data`,
          evidence: [headQuote(result.text.trimStart())],
        })
        return
      }
      if (result.isError || result.value === undefined) return
      if (isEmpty(result.value)) {
        const quote = result.text.trim()
        ctx.log.open({
          kind: 'suspicious_tool_result',
          severity: 'warn',
          steps: [result.step],
          message: `${name} returned an empty result`,
          evidence: quote.length > 0 ? [headQuote(quote)] : [],
        })
        return
      }
      if (result.brokenJson || (typeof result.value === 'string' && TRUNCATED.test(result.value))) {
        ctx.log.open({
          kind: 'suspicious_tool_result',
          severity: 'warn',
          steps: [result.step],
          message: `${name} returned a result that looks truncated`,
          evidence: [tailQuote(result.text.trimEnd(), 80)],
        })
        return
      }
      if (isErrorResult(result.value)) return
      const value = result.value
      const type = typeOf(value)
      const first = shapes.get(name)
      if (!first) {
        const keys = type === 'object' ? Object.keys(value as object) : []
        shapes.set(name, { type, keys, step: result.step, result })
        return
      }
      let change: string
      if (type !== first.type) change = `${first.type} at step ${first.step}, now ${type}`
      else if (type === 'object') {
        const missing = first.keys.filter((k) => !Object.hasOwn(value as object, k))
        if (missing.length === 0) return
        change = `without ${missing.map((k) => JSON.stringify(k)).join(', ')}, which step ${first.step} had`
      } else return
      if (drifts.has(`${name}\u0000${change}`)) return
      drifts.add(`${name}\u0000${change}`)
      ctx.log.open({
        kind: 'suspicious_tool_result',
        severity: 'warn',
        steps: [first.step, result.step],
        message: `${name} returned a result of another shape than its first one (${change})`,
        evidence: [headQuote(first.result.text), headQuote(result.text)],
      })
    },
  }
}

function isEmpty(value: JsonValue): boolean {
  if (value === null) return true
  if (typeof value === 'string') return value.trim().length === 0
  if (Array.isArray(value)) return value.length === 0
  if (typeof value === 'object') {
    for (const _ in value) return false
    return true
  }
  return false
}

function typeOf(value: JsonValue): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value
}
