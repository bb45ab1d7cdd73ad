/**
 * RFC 6901 JSON Pointers. Records and scan findings name locations this way because it is the one
 * path syntax that round-trips every key (`a/b`, `~`, empty keys) and that other tools understand.
 */

/**
 * Escapes one reference token: `~` becomes `~0` and `/` becomes `~1`, in that order.
 *
 * @example
 * escapePointerToken('a/b~c') // 'a~1b~0c'
 */
export function escapePointerToken(token: string): string {
  if (!token.includes('~') && !token.includes('/')) return token
  return token.replace(/~/g, '~0').replace(/\//g, '~1')
}

/**
 * Builds a pointer from reference tokens; the empty list is the whole document (`''`).
 *
 * @example
 * toPointer(['headers', 'x/y', 0]) // '/headers/x~1y/0'
 */
export function toPointer(tokens: readonly (string | number)[]): string {
  let out = ''
  for (const t of tokens) out += `/${typeof t === 'number' ? t : escapePointerToken(t)}`
  return out
}

/**
 * Splits a pointer back into its tokens (`~1` before `~0`, as the RFC orders the unescaping).
 *
 * @example
 * parsePointer('/headers/x~1y/0') // ['headers', 'x/y', '0']
 */
export function parsePointer(pointer: string): string[] {
  if (pointer === '') return []
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
}
