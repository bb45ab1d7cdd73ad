import { CrashlabError } from '../../../errors.ts'
import { checkAgentCaseBounds } from './check-bounds.ts'

/**
 * The first three steps of the AgentCase reader: size, UTF-8, JSON. Each has its own error code, so a
 * caller (or the CLI) can tell "too big" from "not text" from "not JSON" without reading messages.
 */

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/**
 * Reads `input` as AgentCase JSON text and returns the parsed value. Throws E_AGENTCASE_TOO_LARGE,
 * E_AGENTCASE_ENCODING or E_AGENTCASE_MALFORMED, in that order.
 *
 * @example
 * decodeAgentCaseJson(readFileSync(path), { maxBytes: 16 * 1024 * 1024, source: path })
 */
export function decodeAgentCaseJson(
  input: string | Uint8Array,
  options: { maxBytes: number; source: string },
): unknown {
  const { maxBytes, source } = options
  // Size first, before any decoding: a string of n UTF-16 units is at least n UTF-8 bytes, so the cheap
  // length test settles most cases and byteLength runs only near the bound.
  const lowerBoundOnly = typeof input === 'string' && input.length > maxBytes
  const size =
    typeof input === 'string' ? (lowerBoundOnly ? input.length : Buffer.byteLength(input)) : input.byteLength
  if (size > maxBytes) {
    throw new CrashlabError(
      'E_AGENTCASE_TOO_LARGE',
      `${source} is ${lowerBoundOnly ? 'at least ' : ''}${size} bytes, over the AgentCase size bound of ${maxBytes} bytes; it was refused before parsing. Trim large payloads from the run before exporting it, or pass a larger maxBytes if you trust the file.`,
      { subject: source },
    )
  }

  let text: string
  if (typeof input === 'string') {
    // A JS string can hold lone surrogates, which have no UTF-8 form: the file this text stands for could not exist.
    // With the u flag, a surrogate class matches only unpaired halves.
    const lone = /[\uD800-\uDFFF]/u.exec(input)
    if (lone) throw encodingError(source, `contains a lone UTF-16 surrogate at index ${lone.index}`)
    text = input
  } else {
    try {
      text = decoder.decode(input)
    } catch (cause) {
      throw encodingError(
        source,
        `is not valid UTF-8 (first bad byte at offset ${firstInvalidUtf8(input)})`,
        cause,
      )
    }
  }

  // The BOM is valid UTF-8, so it passes the step above; the format calls it malformed JSON, and so does
  // the reference reader (Python's json refuses "Unexpected UTF-8 BOM"), hence E_AGENTCASE_MALFORMED.
  if (text.charCodeAt(0) === 0xfeff) {
    throw new CrashlabError(
      'E_AGENTCASE_MALFORMED',
      `${source} starts with a UTF-8 byte order mark (BOM), which AgentCase forbids. Save the file as UTF-8 without BOM.`,
      { subject: source },
    )
  }

  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (cause) {
    throw new CrashlabError(
      'E_AGENTCASE_MALFORMED',
      `${source} is not valid JSON: ${(cause as Error).message}. An .agentcase file is one JSON object; check that it was not truncated or edited by hand.`,
      { cause, subject: source },
    )
  }
  // Depth and width before anything else walks the value (validateAgentCase checks them again for
  // values that never were text; the walk is cheap next to JSON.parse).
  checkAgentCaseBounds(value, source)
  const problem = findUnrepresentable(value)
  if (problem) {
    throw new CrashlabError('E_AGENTCASE_MALFORMED', `${source} is not usable JSON: ${problem}.`, {
      subject: source,
    })
  }
  return value
}

function encodingError(source: string, what: string, cause?: unknown): CrashlabError {
  return new CrashlabError(
    'E_AGENTCASE_ENCODING',
    `${source} ${what}. AgentCase files are UTF-8 text; re-export the case, or convert the file to UTF-8.`,
    { cause, subject: source },
  )
}

/**
 * Walks the parsed value without recursion and reports a number too large for a double (`1e400` parses
 * as Infinity, which no canonical JSON writer may write back). The shape bounds (depth, entries) come
 * first, so the walk is over a bounded document.
 */
function findUnrepresentable(root: unknown): string | undefined {
  const stack: unknown[] = [root]
  while (stack.length > 0) {
    const v = stack.pop()
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return 'a number is out of the range of a 64-bit float'
    } else if (typeof v === 'object' && v !== null) {
      for (const item of Array.isArray(v) ? v : Object.values(v))
        if (typeof item === 'object' || typeof item === 'number') stack.push(item)
    }
  }
  return undefined
}

/** The offset of the first byte that breaks UTF-8 (only called once decoding failed, for the message). */
function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0
  while (i < b.length) {
    const rule = utf8Rule(b[i]!)
    if (!rule) return i
    const [n, lo, hi] = rule
    for (let k = 1; k <= n; k++) {
      const d = b[i + k]
      if (d === undefined || d < (k === 1 ? lo : 0x80) || d > (k === 1 ? hi : 0xbf)) return i
    }
    i += n + 1
  }
  return b.length
}

/** Continuation count and the allowed range of the second byte (RFC 3629 table 3-7), for a lead byte. */
function utf8Rule(c: number): [number, number, number] | undefined {
  if (c < 0x80) return [0, 0, 0]
  if (c >= 0xc2 && c <= 0xdf) return [1, 0x80, 0xbf]
  if (c === 0xe0) return [2, 0xa0, 0xbf]
  if (c === 0xed) return [2, 0x80, 0x9f]
  if (c >= 0xe1 && c <= 0xef) return [2, 0x80, 0xbf]
  if (c === 0xf0) return [3, 0x90, 0xbf]
  if (c >= 0xf1 && c <= 0xf3) return [3, 0x80, 0xbf]
  if (c === 0xf4) return [3, 0x80, 0x8f]
  return undefined
}
