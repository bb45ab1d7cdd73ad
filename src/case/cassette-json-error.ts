/**
 * Where a JSON text stops being JSON, for the message of `E_CASSETTE_MALFORMED`.
 *
 * V8 states the position for most syntax errors ("… in JSON at position 42"), but not for an unexpected
 * token ("Unexpected token '}', …"), and a message that cannot point at the line is of little use in a
 * 5 MB file. This runs only after `JSON.parse` has already failed, so it may parse again.
 */

export interface JsonErrorLocation {
  /** What `JSON.parse` said, without the echo of the input V8 appends. */
  reason: string
  /** Offset in UTF-16 code units into the text. */
  position: number
  line: number
  column: number
}

const AT_POSITION = /(?: in JSON)? at position (\d+)(?: \(line \d+ column \d+\))?$/

/**
 * Locates the syntax error `error` that `JSON.parse(text)` threw.
 *
 * @example
 * try { JSON.parse(text) } catch (err) { const { line, column } = locateJsonError(text, err as SyntaxError) }
 */
export function locateJsonError(text: string, error: Error): JsonErrorLocation {
  const message = error.message
  const stated = AT_POSITION.exec(message)
  let position: number
  let reason: string
  if (stated) {
    position = Number(stated[1])
    reason = message.slice(0, stated.index)
  } else if (message.startsWith('Unexpected end of JSON input')) {
    position = text.length
    reason = 'Unexpected end of JSON input (the file may have been cut short)'
  } else {
    position = firstBadOffset(text)
    // "Unexpected token '}', …"echo of the input"… is not valid JSON": keep the part before the echo.
    reason = message.replace(/, [\s\S]* is not valid JSON$/, '')
  }
  const { line, column } = lineAndColumn(text, position)
  return { reason, position, line, column }
}

/**
 * The offset of the first character that no JSON text could continue with. A prefix that is the start of
 * some valid JSON fails only with an "end of input" error (or parses), and every shorter prefix of such a
 * prefix does too, so the first bad offset can be found by bisection: O(n log n), on an error path only.
 */
function firstBadOffset(text: string): number {
  let good = 0 // text.slice(0, good) is a valid start of JSON
  let bad = text.length // text.slice(0, bad) is not
  while (bad - good > 1) {
    const mid = good + Math.floor((bad - good) / 2)
    if (isValidPrefix(text.slice(0, mid))) good = mid
    else bad = mid
  }
  return bad - 1
}

function isValidPrefix(prefix: string): boolean {
  try {
    JSON.parse(prefix)
    return true
  } catch (err) {
    const message = (err as Error).message
    if (message.startsWith('Unexpected end of JSON input')) return true
    const stated = AT_POSITION.exec(message)
    return stated !== null && Number(stated[1]) >= prefix.length
  }
}

function lineAndColumn(text: string, position: number): { line: number; column: number } {
  let line = 1
  let lineStart = 0
  for (let i = text.indexOf('\n'); i !== -1 && i < position; i = text.indexOf('\n', i + 1)) {
    line++
    lineStart = i + 1
  }
  return { line, column: position - lineStart + 1 }
}
