/**
 * The longest piece of a user's text (a key, a value, a version string) that an error message quotes.
 * A file can hold a key of millions of characters; quoting it whole made a 10 MB message.
 */
export const MAX_QUOTED_CHARS = 80

/**
 * `text` when it is short, else its start, an ellipsis and the full length, so that a message stays
 * readable (and small) whatever the file holds. A surrogate pair is never cut in half.
 *
 * @example
 * clipText('k'.repeat(5_000_000)) // 'kkkk…k… (5000000 characters)', 80 k's
 */
export function clipText(text: string, max = MAX_QUOTED_CHARS): string {
  if (text.length <= max) return text
  let end = max
  const last = text.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end--
  return `${text.slice(0, end)}… (${text.length} characters)`
}

/**
 * A value as JSON text for a message, clipped: `"abc"`, `42`, `{"a":1,…`. Big objects are not
 * stringified whole first: only their kind and size are named.
 *
 * @example
 * quoteValue('0.1') // '"0.1"'
 * quoteValue({ a: 1 }) // 'an object'
 */
export function quoteValue(value: unknown, max = MAX_QUOTED_CHARS): string {
  if (typeof value === 'string') return clipText(JSON.stringify(value), max)
  if (Array.isArray(value)) return `an array of ${value.length}`
  if (typeof value === 'object' && value !== null) return 'an object'
  if (value === undefined) return 'undefined'
  return clipText(String(value), max)
}
