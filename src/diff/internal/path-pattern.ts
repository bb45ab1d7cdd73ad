import { CrashlabError } from '../../errors.ts'

/**
 * Ignored locations are path patterns in the notation the diff reports (`$.events[*].event_id`), not
 * bare key names: the reference's first regression helper dropped every key named `timestamp`, which
 * also hid a changed business field of that name. A pattern names one schema location, so payload data
 * is never ignored by accident.
 *
 * The patterns are compiled into one trie and walked alongside the compared values: at each step the
 * walker keeps the few trie nodes still alive, so ignoring costs nothing per node when no pattern can
 * match below it, and nothing at all when there are no patterns.
 */

/** One node of the compiled patterns; `end` marks a complete pattern (the location is ignored). */
export interface PatternNode {
  end: boolean
  keys: Map<string, PatternNode>
  indices: Map<number, PatternNode>
  anyKey: PatternNode | undefined
  anyIndex: PatternNode | undefined
}

type Segment = { key: string } | { index: number } | 'anyKey' | 'anyIndex'

const IDENT_START = /[A-Za-z_$]/
const IDENT_PART = /[A-Za-z0-9_$]/
const NO_STATES: readonly PatternNode[] = []

const node = (): PatternNode => ({
  end: false,
  keys: new Map(),
  indices: new Map(),
  anyKey: undefined,
  anyIndex: undefined,
})

/**
 * Compiles patterns into the walker's start states (empty when there are none). Throws
 * `E_DIFF_OPTIONS` naming the pattern and the character where it went wrong.
 *
 * @example
 * const start = compilePathPatterns(['$.created_at', '$.events[*].event_id'])
 * isIgnored(advance(advance(advance(start, 'events'), 3), 'event_id')) // true
 */
export function compilePathPatterns(patterns: readonly string[] = []): readonly PatternNode[] {
  if (patterns.length === 0) return NO_STATES
  const root = node()
  for (const pattern of patterns) {
    let at = root
    for (const seg of parsePattern(pattern)) {
      if (seg === 'anyKey') at = at.anyKey ??= node()
      else if (seg === 'anyIndex') at = at.anyIndex ??= node()
      else if ('key' in seg) at = getOrAdd(at.keys, seg.key)
      else at = getOrAdd(at.indices, seg.index)
    }
    at.end = true
  }
  return [root]
}

/**
 * The states after stepping into key or index `seg`. Allocation-free when nothing can match.
 *
 * @example
 * advance(states, 'events') // states for `$.events`
 */
export function advance(states: readonly PatternNode[], seg: string | number): readonly PatternNode[] {
  if (states.length === 0) return NO_STATES
  let out: PatternNode[] | undefined
  for (const s of states) {
    const exact = typeof seg === 'number' ? s.indices.get(seg) : s.keys.get(seg)
    const wild = typeof seg === 'number' ? s.anyIndex : s.anyKey
    if (exact || wild) {
      out ??= []
      if (exact) out.push(exact)
      if (wild) out.push(wild)
    }
  }
  return out ?? NO_STATES
}

/**
 * True when one of the states completes a pattern: the location is left out of the comparison.
 *
 * @example
 * isIgnored(compilePathPatterns(['$'])) // true: `$` ignores everything
 */
export function isIgnored(states: readonly PatternNode[]): boolean {
  for (const s of states) if (s.end) return true
  return false
}

function getOrAdd<K>(map: Map<K, PatternNode>, k: K): PatternNode {
  let n = map.get(k)
  if (!n) {
    n = node()
    map.set(k, n)
  }
  return n
}

/** Parses `$`, `.key`, `.*`, `['key']` (or `["key"]`, with `\` escapes), `[3]`, `[*]`. */
function parsePattern(pattern: string): Segment[] {
  const fail = (at: number, what: string): never => {
    throw new CrashlabError(
      'E_DIFF_OPTIONS',
      `invalid ignored path pattern ${JSON.stringify(pattern)} at character ${at + 1}: ${what}. ` +
        `Patterns look like $.created_at, $.events[*].event_id or $.headers['x-request-id'] ` +
        `([*] is any index, .* any key).`,
      { subject: pattern },
    )
  }
  if (typeof pattern !== 'string' || pattern[0] !== '$') return fail(0, 'a pattern starts with $')
  const segs: Segment[] = []
  let i = 1
  while (i < pattern.length) {
    const c = pattern[i]
    if (c === '.') {
      if (pattern[i + 1] === '*') {
        segs.push('anyKey')
        i += 2
        continue
      }
      let j = i + 1
      if (!IDENT_START.test(pattern[j] ?? '')) fail(j, "expected a key name or * after '.'")
      while (j < pattern.length && IDENT_PART.test(pattern[j]!)) j++
      segs.push({ key: pattern.slice(i + 1, j) })
      i = j
    } else if (c === '[') {
      const q = pattern[i + 1]
      if (q === '*' && pattern[i + 2] === ']') {
        segs.push('anyIndex')
        i += 3
      } else if (q === "'" || q === '"') {
        let key = ''
        let j = i + 2
        for (; j < pattern.length && pattern[j] !== q; j++)
          key += pattern[j] === '\\' ? pattern[++j] : pattern[j]
        if (pattern[j] !== q || pattern[j + 1] !== ']') fail(j, `expected ${q}] to close the key`)
        segs.push({ key })
        i = j + 2
      } else {
        const m = /^\[(\d+)\]/.exec(pattern.slice(i))
        if (!m) return fail(i, "expected [*], [<index>] or ['key']")
        segs.push({ index: Number(m[1]) })
        i += m[0].length
      }
    } else fail(i, "expected '.' or '['")
  }
  return segs
}
