import type { Rng } from './gen.ts'

/**
 * One generated credential as it is planted: `text` is what goes into the run (the token, or the
 * assignment, DSN or header line that holds it), `sensitive` the parts that must never be written (a
 * key's body without its documented prefix, a DSN's password without its host, a cookie's value).
 */
export interface Planted {
  text: string
  sensitive: string[]
}

/**
 * A credential format. `generate` draws every random character of the sensitive parts from `secret`,
 * and anything random that is not sensitive (a bot id, a team id) from `shape`: rotating a secret is
 * generating again with another `secret` and the same `shape`.
 */
export interface SecretFormat {
  id: string
  /** Where the format is documented. */
  source: string
  generate(secret: Rng, shape: Rng): Planted
}

/** A string that looks like a secret and is not one: no rule may redact any part of it. */
export interface LookAlike {
  id: string
  text: string
}

/** A format whose text is a documented prefix followed by the sensitive body. */
export function prefixed(
  id: string,
  source: string,
  prefix: string,
  body: (secret: Rng, shape: Rng) => string,
  suffix = '',
): SecretFormat {
  return {
    id,
    source,
    generate(secret, shape) {
      const b = body(secret, shape)
      return { text: `${prefix}${b}${suffix}`, sensitive: [b] }
    },
  }
}

/** A format whose text is `build(value)`, where only the value is sensitive (an assignment, a header). */
export function assigned(
  id: string,
  source: string,
  build: (value: string) => string,
  value: (secret: Rng) => string,
): SecretFormat {
  return {
    id,
    source,
    generate(secret) {
      const v = value(secret)
      return { text: build(v), sensitive: [v] }
    },
  }
}
