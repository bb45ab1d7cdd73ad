import type { RedactionRecord } from '../types.ts'
import { toPointer } from './json-pointer.ts'
import { RuleFailure, type RuleMatch } from './rule-set.ts'
import { collectStreamTexts, type StreamLeaf } from './stream-text.ts'

type Tokens = (string | number)[]

/** What the stream pass needs of the walk's state (a subset of `WalkState`). */
export interface StreamPassState {
  rules: { find(text: string): RuleMatch[] }
  records: RedactionRecord[]
  warnings: string[]
  partial: boolean
}

/** One replacement inside one leaf: `[from, to)` of the leaf's original value becomes `insert`. */
interface Edit {
  from: number
  to: number
  insert: string
  rule: string
  marker: string
}

const FAILED = '[REDACTED:rule-failed]'

/**
 * Redacts a stream of SSE chunks as the text it assembles to, so that a secret the provider split over
 * several chunks is caught: the redactor's patterns run over each logical text of the stream (see
 * `collectStreamTexts`), and every matched span is mapped back onto the chunks it covers. The marker
 * goes in the first covered chunk, and the rest of the span is emptied in the following ones. Only the
 * chunks that hold part of a span are rewritten (their `data` re-serialized); every other chunk is
 * returned as the same object, and the number of chunks and their boundaries never change. One record
 * per rewritten chunk and rule names `<tokens>/<chunk>/data`.
 *
 * User hooks see each chunk's string in the per-string pass, not the assembled text: a hook returns a
 * whole new string, which cannot be mapped back onto chunk boundaries.
 *
 * @example
 * const out = redactStreamChunks(response.wire.chunks, state, ['run', 'steps', 0, 'response', 'wire', 'chunks'])
 * out === response.wire.chunks // true when no text of the stream held a secret
 */
export function redactStreamChunks<C extends { data: string }>(
  chunks: readonly C[],
  state: StreamPassState,
  tokens: Tokens,
): readonly C[] {
  const { texts, parsed } = collectStreamTexts(chunks)
  const edits = new Map<StreamLeaf, Edit[]>()
  for (const text of texts) {
    let matches: RuleMatch[]
    try {
      matches = state.rules.find(text.text)
    } catch (err) {
      dropText(text.leaves, edits, state, tokens, err)
      continue
    }
    for (const m of matches) {
      let first = true
      for (const leaf of text.leaves) {
        const end = leaf.start + leaf.value.length
        if (end <= m.start || leaf.start >= m.end) continue
        const edit: Edit = {
          from: Math.max(m.start, leaf.start) - leaf.start,
          to: Math.min(m.end, end) - leaf.start,
          insert: first ? m.rule.marker : '',
          rule: m.rule.id,
          marker: m.rule.marker,
        }
        first = false
        const list = edits.get(leaf)
        if (list) list.push(edit)
        else edits.set(leaf, [edit])
      }
    }
  }
  if (edits.size === 0) return chunks
  return rewrite(chunks, parsed, edits, state, tokens)
}

/** A rule failed on the assembled text: the whole text is dropped, as the per-string pass drops a value. */
function dropText(
  leaves: readonly StreamLeaf[],
  edits: Map<StreamLeaf, Edit[]>,
  state: StreamPassState,
  tokens: Tokens,
  err: unknown,
): void {
  const rule = err instanceof RuleFailure ? err.ruleId : 'unknown'
  leaves.forEach((leaf, i) => {
    const insert = i === 0 ? FAILED : ''
    edits.set(leaf, [{ from: 0, to: leaf.value.length, insert, rule, marker: FAILED }])
  })
  state.partial = true
  const cause = err instanceof RuleFailure ? err.cause : err
  const name = cause instanceof Error ? cause.name : typeof cause
  state.warnings.push(
    `[crashlab] redaction rule "${rule}" failed on the stream at ${toPointer(tokens) || '/'} (${name}); its text was dropped and the write is partial. Fix or remove the rule.`,
  )
}

function applyEdits(value: string, list: readonly Edit[]): string {
  let out = value
  for (const e of [...list].sort((a, b) => b.from - a.from))
    out = out.slice(0, e.from) + e.insert + out.slice(e.to)
  return out
}

function setAt(doc: unknown, path: readonly (string | number)[], value: string): void {
  let node = doc as Record<string | number, unknown>
  for (let i = 0; i < path.length - 1; i++) node = node[path[i]!] as Record<string | number, unknown>
  node[path[path.length - 1]!] = value
}

function rewrite<C extends { data: string }>(
  chunks: readonly C[],
  parsed: unknown[],
  edits: Map<StreamLeaf, Edit[]>,
  state: StreamPassState,
  tokens: Tokens,
): C[] {
  const byChunk = new Map<number, Array<[StreamLeaf, Edit[]]>>()
  for (const entry of edits) {
    const list = byChunk.get(entry[0].chunk)
    if (list) list.push(entry)
    else byChunk.set(entry[0].chunk, [entry])
  }
  const out = [...chunks]
  for (const [index, leaves] of [...byChunk].sort((a, b) => a[0] - b[0])) {
    // `parsed` holds this pass's own parse of the chunk, so it is safe to change in place.
    let data = chunks[index]!.data
    const doc = parsed[index]
    for (const [leaf, list] of leaves) {
      const next = applyEdits(leaf.value, list)
      if (doc === undefined) data = next
      else setAt(doc, leaf.tokens, next)
    }
    if (doc !== undefined) data = JSON.stringify(doc)
    out[index] = { ...chunks[index]!, data }
    const path = toPointer([...tokens, index, 'data'])
    const seen = new Set<string>()
    for (const [, list] of leaves) {
      for (const e of list) {
        if (seen.has(e.rule)) continue
        seen.add(e.rule)
        state.records.push({ path, rule: e.rule, marker: e.marker })
      }
    }
  }
  return out
}
