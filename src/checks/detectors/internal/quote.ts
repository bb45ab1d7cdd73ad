/**
 * Evidence quotes: verbatim pieces of what a step holds, short enough to read in a report. A quote is
 * always an exact substring of the text it was cut from (no ellipsis is added), so a later checker can
 * find it in the step it cites.
 */

/** The longest quote, in UTF-16 code units. */
export const MAX_QUOTE = 200

// Where a cut reads naturally: after a space, a comma, a closing bracket, a sentence end, a tag end.
const BOUNDARY = /[\s,;.!?)}\]>]/

/**
 * The start of `text`, at most `max` characters, cut after the last boundary in its second half (else
 * at `max`), never inside a surrogate pair.
 *
 * @example
 * headQuote('{"order_id":"A17","amount":"49"}', 20) // '{"order_id":"A17",'
 */
export function headQuote(text: string, max = MAX_QUOTE): string {
  if (text.length <= max) return text
  let end = max
  for (let i = max - 1; i >= max >> 1; i--) {
    if (BOUNDARY.test(text[i]!)) {
      end = i + 1
      break
    }
  }
  if (isHighSurrogate(text.charCodeAt(end - 1))) end--
  return text.slice(0, end)
}

/**
 * The end of `text`, at most `max` characters, starting after a boundary in its first half (else at
 * `length - max`), never inside a surrogate pair: where a cut-off text shows that it was cut.
 *
 * @example
 * tailQuote('the refund policy says that orders', 12) // 'that orders'
 */
export function tailQuote(text: string, max = MAX_QUOTE): string {
  if (text.length <= max) return text
  const first = text.length - max
  let start = first
  for (let i = first; i < first + (max >> 1); i++) {
    if (BOUNDARY.test(text[i]!)) {
      start = i + 1
      break
    }
  }
  if (isLowSurrogate(text.charCodeAt(start))) start++
  return text.slice(start)
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff
}
