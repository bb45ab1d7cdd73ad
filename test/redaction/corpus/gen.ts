import { crc32 } from 'node:zlib'
import { createRng, type Rng } from '../../../src/testing/create-rng.ts'

/**
 * Small generators the secret corpus is built from. Every token is made at test time from a seeded
 * generator, so no whole credential (let alone one with a valid checksum) is ever committed.
 */

export type { Rng }
export { createRng }

export const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'
export const LOWER = 'abcdefghijklmnopqrstuvwxyz'
export const DIGITS = '0123456789'
export const ALNUM = UPPER + LOWER + DIGITS
export const UPPER_ALNUM = UPPER + DIGITS
export const LOWER_ALNUM = LOWER + DIGITS
export const HEX = '0123456789abcdef'
export const HEX_UPPER = '0123456789ABCDEF'
export const B64 = `${ALNUM}+/`
export const B64URL = `${ALNUM}-_`
/** RFC 4648 base32, as AWS key ids use it. */
export const BASE32 = `${UPPER}234567`
/** The bech32 data alphabet (BIP 173), as age keys use it. */
export const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l'
/** What a generated password may hold: unreserved URL characters, so a DSN needs no encoding. */
export const PASSWORD = `${ALNUM}-._~`

/** `n` characters drawn from `alphabet`. */
export function chars(rng: Rng, alphabet: string, n: number): string {
  let out = ''
  for (let i = 0; i < n; i++) out += alphabet[rng.int(alphabet.length)]
  return out
}

/** A length in [min, max]. */
export function between(rng: Rng, min: number, max: number): number {
  return min + rng.int(max - min + 1)
}

/**
 * Random characters that are sure to hold at least one letter and one digit: a run of one class would
 * look like a word or a number, and the corpus is about secrets.
 */
export function mixed(rng: Rng, alphabet: string, n: number): string {
  const both = /[A-Za-z]/.test(alphabet) && /\d/.test(alphabet)
  for (;;) {
    const s = chars(rng, alphabet, n)
    if (!both || n < 8 || (/[A-Za-z]/.test(s) && /\d/.test(s))) return s
  }
}

const BASE62 = `${DIGITS}${UPPER}${LOWER}`

/** `value` in base 62 (0-9A-Za-z), left-padded with `0` to `width`. */
export function base62(value: number, width: number): string {
  let out = ''
  let v = value >>> 0
  while (v > 0) {
    out = BASE62[v % 62] + out
    v = Math.floor(v / 62)
  }
  return out.padStart(width, '0')
}

/**
 * GitHub's token body: 30 random base62 characters and their CRC32 in 6 base62 characters
 * (https://github.blog/2021-04-05-behind-githubs-new-authentication-token-formats/). npm's new tokens
 * use the same construction (https://github.blog/changelog/2021-09-23-npm-has-a-new-access-token-format/).
 */
export function crcBody(rng: Rng, n = 30): string {
  const entropy = mixed(rng, ALNUM, n)
  return entropy + base62(crc32(entropy), 6)
}

/** Base64 (with padding) of a string's UTF-8 bytes. */
export function b64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64')
}

/** Base64url without padding, as JWT segments are written (RFC 7515). */
export function b64url(text: string | Buffer): string {
  return Buffer.from(text).toString('base64url')
}

/** Random bytes as base64 of the given decoded length. */
export function randomB64(rng: Rng, bytes: number, alphabet: 'std' | 'url' = 'std'): string {
  const buf = Buffer.alloc(bytes)
  for (let i = 0; i < bytes; i++) buf[i] = rng.int(256)
  return alphabet === 'url' ? buf.toString('base64url') : buf.toString('base64')
}

/** A PEM body: base64 of `bytes` random bytes, in 64-character lines. */
export function pemLines(rng: Rng, bytes: number): string[] {
  const body = randomB64(rng, bytes)
  const lines: string[] = []
  for (let i = 0; i < body.length; i += 64) lines.push(body.slice(i, i + 64))
  return lines
}

/** `application/x-www-form-urlencoded` encoding of one value (spaces as `+`). */
export function formEncode(value: string): string {
  return encodeURIComponent(value).replace(/%20/g, '+')
}

/** A fresh generator derived from a label: the same label always gives the same sequence. */
export function rngFor(...label: Array<string | number>): Rng {
  return createRng(label.join('\u0000'))
}
