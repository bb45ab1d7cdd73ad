import { toPointer } from './internal/json-pointer.ts'
import { maskExcerpt } from './internal/mask.ts'
import { isSensitiveEntry } from './internal/redact-walk.ts'
import { MARKER_PREFIX, RuleFailure, type RuleMatch } from './internal/rule-set.ts'
import { type ScanContext, scanContext } from './internal/scan-context.ts'
import { scanString } from './internal/scan-string.ts'
import { collectStreamTexts, isChunkArray } from './internal/stream-text.ts'
import { scanTextWith } from './scan-text.ts'
import type { ScanFinding, ScanOptions } from './scan-types.ts'

type Tokens = (string | number)[]

/** Where a value is: its pointer in the document, and inside a string that holds JSON, the path there. */
interface Place {
  outer: Tokens
  inner: Tokens | null
}

/** Strings holding JSON are parsed this deep (an SSE chunk inside a bodyText inside a cassette). */
const MAX_EMBED_DEPTH = 3

function hasLeak(v: unknown): boolean {
  if (typeof v === 'string') return v !== '' && !(v.startsWith(MARKER_PREFIX) && v.endsWith(']'))
  if (typeof v === 'number') return true
  if (Array.isArray(v)) return v.some(hasLeak)
  if (typeof v === 'object' && v !== null) return Object.values(v).some(hasLeak)
  return false
}

function leakExcerpt(v: unknown): string {
  return maskExcerpt(typeof v === 'string' ? v : JSON.stringify(v))
}

/** @internal Scans a parsed document with a resolved context; `line` is set for JSON Lines. */
export function scanDocumentWith(doc: unknown, ctx: ScanContext, line?: number): ScanFinding[] {
  const out: ScanFinding[] = []
  const seen = new Set<string>()
  const emit = (place: Place, rule: string, excerpt: string): void => {
    const pointer = toPointer(place.outer)
    const embeddedPointer = place.inner ? toPointer(place.inner) : undefined
    const id = `${pointer}\0${embeddedPointer}\0${rule}\0${excerpt}`
    if (seen.has(id)) return
    seen.add(id)
    const f: ScanFinding = { file: ctx.file, pointer, rule, excerpt }
    if (embeddedPointer !== undefined) f.embeddedPointer = embeddedPointer
    if (line !== undefined) f.line = line
    out.push(f)
  }
  const at = (place: Place, token: string | number): Place =>
    place.inner
      ? { outer: place.outer, inner: [...place.inner, token] }
      : { outer: [...place.outer, token], inner: null }
  const tokensOf = (place: Place): Tokens => (place.inner ? [...place.outer, ...place.inner] : place.outer)

  function walk(v: unknown, place: Place, depth: number): void {
    if (typeof v === 'string') {
      scanStringValue(v, place, depth)
      return
    }
    if (typeof v !== 'object' || v === null) return
    if (Array.isArray(v)) {
      v.forEach((item, i) => {
        const p = at(place, i)
        if (
          Array.isArray(item) &&
          item.length === 2 &&
          typeof item[0] === 'string' &&
          ctx.isSensitive(item[0])
        ) {
          if (hasLeak(item[1])) emit(at(p, 1), 'sensitive-key', leakExcerpt(item[1]))
          return
        }
        walk(item, p, depth)
      })
      return
    }
    const obj = v as Record<string, unknown>
    const parentKey = tokensOf(place).at(-1)
    for (const [k, item] of Object.entries(obj)) {
      const p = at(place, k)
      if (isSensitiveEntry(obj, k, parentKey, ctx.isSensitive)) {
        // Inside JSON held as text, an object under a sensitive key is judged by its leaves, as the
        // redactor's text rule judges it (it cannot replace a whole object without re-writing the text).
        if (place.inner && typeof item === 'object' && item !== null) walk(item, p, depth)
        else if (hasLeak(item)) emit(p, 'sensitive-key', leakExcerpt(item))
        continue
      }
      walk(item, p, depth)
      if (k === 'chunks' && isChunkArray(item)) scanStream(item, p)
    }
  }

  /** A secret split over SSE chunks: the assembled texts, reported where the secret starts. */
  function scanStream(chunks: readonly { data: string }[], place: Place): void {
    for (const text of collectStreamTexts(chunks).texts) {
      let matches: RuleMatch[]
      try {
        matches = ctx.rules.find(text.text)
      } catch (err) {
        emit(place, `rule-failed:${err instanceof RuleFailure ? err.ruleId : 'unknown'}`, '')
        continue
      }
      for (const m of matches) {
        const covered = text.leaves.filter((l) => l.start < m.end && l.start + l.value.length > m.start)
        // Inside one chunk the per-string scan has reported it already.
        if (covered.length < 2) continue
        const first = covered[0]!
        let where = at(at(place, first.chunk), 'data')
        if (first.tokens.length) where = { outer: tokensOf(where), inner: [...first.tokens] }
        emit(where, m.rule.id, maskExcerpt(text.text.slice(m.start, m.end)))
      }
    }
  }

  function scanStringValue(s: string, place: Place, depth: number): void {
    if (depth < MAX_EMBED_DEPTH && scanEmbedded(s, place, depth)) return
    const allowed = ctx.allowed(tokensOf(place))
    for (const f of scanString(s, ctx, { allowed, text: false })) emit(place, f.rule, f.excerpt)
  }

  /** A string that is JSON (a wire `bodyText`) or SSE text (`data: {…}` lines): scanned with locations. */
  function scanEmbedded(s: string, place: Place, depth: number): boolean {
    const first = s.trimStart()[0]
    if (first === '{' || first === '[') {
      try {
        const parsed: unknown = JSON.parse(s)
        walk(parsed, { outer: place.outer, inner: place.inner ?? [] }, depth + 1)
        return true
      } catch {
        return false
      }
    }
    if (!/^(?:data|event|id):/m.test(s) || !s.includes('data:')) return false
    const rest: string[] = []
    for (const line of s.split('\n')) {
      const payload = line.startsWith('data:') ? line.slice(5).trim() : ''
      if (payload.startsWith('{') || payload.startsWith('[')) {
        try {
          walk(JSON.parse(payload), { outer: place.outer, inner: place.inner ?? [] }, depth + 1)
          continue
        } catch {
          // not JSON after all: scanned as text below
        }
      }
      rest.push(line)
    }
    for (const f of scanTextWith(rest.join('\n'), ctx)) emit(place, f.rule, f.excerpt)
    return true
  }

  walk(doc, { outer: [], inner: null }, 0)
  return out
}

/**
 * Scans a parsed document (a cassette, an AgentCase, any JSON) for secrets. Each finding names its JSON
 * Pointer. An unredacted value under a sensitive key is a leak (a `[REDACTED:…]` marker is not). The
 * entropy heuristic skips allow-listed locations (crashlab's hashes and ids, provider fields random by
 * design), also inside strings that hold JSON, such as SSE chunk `data`.
 *
 * @example
 * scanDocument({ headers: { 'x-api-key': 'abc123' }, note: 'q8Zk3Vx9LmP2rT7wYb4Nc6Hd' })
 * // [{ pointer: '/headers/x-api-key', rule: 'sensitive-key', … }, { pointer: '/note', rule: 'high-entropy', … }]
 */
export function scanDocument(doc: unknown, options: ScanOptions = {}): ScanFinding[] {
  return scanDocumentWith(doc, scanContext(options))
}
