import { createHash } from 'node:crypto'

/**
 * The seal of a cassette: the SHA-256 of its canonical text without the seal, written by `writeCassette`
 * after the cassette passed the schema. A load whose text still matches its seal, written by this same
 * crashlab version, skips the schema (and with it loading zod): the file is byte for byte what this
 * crashlab validated. Any edit, or a cassette from another crashlab version, is validated in full.
 * docs/cassette.md ("The seal") has the rule.
 */

/**
 * The seal's line in a canonical cassette, at the top level (two spaces in): keys are sorted, so it sits
 * between `run` and `version`, near the end. No string holds a raw newline, so nothing else matches.
 */
const SEAL_START = '\n  "seal": "'
const VERSION_LINE = '\n  "version": '
const SEAL_LINE = /^\n {2}"seal": "(sha256:[0-9a-f]{64})",\n {2}"version": /

/**
 * The seal of a cassette's canonical text (written without a seal).
 *
 * @example
 * sealOf(serializeCassette(cassette)) // 'sha256:9f86d0…'
 */
export function sealOf(unsealedText: string): string {
  return `sha256:${createHash('sha256').update(unsealedText).digest('hex')}`
}

/**
 * The canonical text of a cassette, sealed: the seal line inserted where the serializer would write it
 * (between `run` and `version`), without serializing the cassette a second time.
 *
 * @example
 * sealText(serializeCassette(cassette)) // '…\n  "seal": "sha256:…",\n  "version": 1\n}\n'
 */
export function sealText(unsealedText: string): { text: string; seal: string } {
  const at = unsealedText.lastIndexOf(VERSION_LINE)
  if (at === -1) throw new Error('not a canonical cassette: no top-level "version" line')
  const seal = sealOf(unsealedText)
  return { text: `${unsealedText.slice(0, at)}${SEAL_START}${seal}",${unsealedText.slice(at)}`, seal }
}

/**
 * Whether `text` is a canonical cassette whose seal line matches the rest of it, byte for byte.
 *
 * @example
 * holdsSeal(readFileSync(path, 'utf8')) // false after any edit
 */
export function holdsSeal(text: string): boolean {
  const at = text.lastIndexOf(SEAL_START)
  const found = at === -1 ? null : SEAL_LINE.exec(text.slice(at, at + 120))
  if (!found) return false
  // The line without its own newline-ending: what is left is the text as it was before sealing, hashed
  // in two parts rather than copied into one string.
  const line = found[0].length - VERSION_LINE.length
  const hash = createHash('sha256')
    .update(text.slice(0, at))
    .update(text.slice(at + line))
  return `sha256:${hash.digest('hex')}` === found[1]
}
