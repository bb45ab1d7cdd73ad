import { createHash } from 'node:crypto'

/**
 * Ids derived from content instead of drawn at random, so that exporting the same run twice gives the
 * same bytes (a committed `.agentcase` only changes when the run does).
 */

/**
 * A UUIDv8 (RFC 9562's custom version) from sha256 of `parts`: the first 16 bytes of the hash with
 * the version and variant bits set. Stable across machines and runs.
 *
 * @example
 * deriveUuid('01J0Z3C4R5T6V7W8X9Y0Z1A2B3', 'event', 4) // '3f1c…-…-8…-…' (always the same)
 */
export function deriveUuid(...parts: Array<string | number>): string {
  const h = createHash('sha256')
    .update(`crashlab/agentcase\u0000${parts.join('\u0000')}`)
    .digest()
  h[6] = (h[6]! & 0x0f) | 0x80
  h[8] = (h[8]! & 0x3f) | 0x80
  const hex = h.subarray(0, 16).toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'

/**
 * A ULID (the crashlab run id format) for a run imported from a foreign case: the time part is
 * `timeMs` (so imported runs sort by when they happened), the other 80 bits come from sha256 of `seed`
 * (so importing the same case twice gives the same run id).
 *
 * @example
 * deriveRunId('11111111-1111-4111-8111-111111111111', Date.parse('2026-07-14T00:00:00Z'))
 */
export function deriveRunId(seed: string, timeMs: number): string {
  // ULID time is 48 bits; clamp instants outside it rather than write an id the schema refuses.
  let t = Math.min(Math.max(Math.floor(Number.isFinite(timeMs) ? timeMs : 0), 0), 2 ** 48 - 1)
  let time = ''
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time
    t = Math.floor(t / 32)
  }
  const h = createHash('sha256').update(`crashlab/run-id\u0000${seed}`).digest()
  let rand = ''
  // 16 characters of 5 bits each from the first 10 bytes of the hash.
  let acc = 0
  let bits = 0
  for (let i = 0; rand.length < 16; i++) {
    acc = (acc << 8) | h[i]!
    bits += 8
    while (bits >= 5 && rand.length < 16) {
      bits -= 5
      rand += CROCKFORD[(acc >> bits) & 31]
    }
    acc &= (1 << bits) - 1
  }
  return time + rand
}

/**
 * The sha256 hex digest of a string: the request hash of imported steps, which carry no crashlab hash.
 *
 * @example
 * sha256Hex('{"model":"m"}')
 */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}
