import { isDeepStrictEqual } from 'node:util'
import type { JsonValue } from '../../case/schema/json.ts'
import type { NormalizedResponse } from '../../case/schema/normalized.ts'
import type { SseChunk } from '../../case/schema/step.ts'
import type { ProviderAdapter } from '../../providers/types.ts'

/**
 * `chunkSize` without a second copy of any wire format. The adapter writes the stream, with the text
 * split its own way; this finds the run of events that carry the text as deltas and writes the run
 * again, one event per piece, each a copy of one of the adapter's own delta events with only the text
 * changed. The run is found in the wire itself:
 * - consecutive events with a string at the same place whose pieces add up to the text;
 * - a run under a key named like `delta` (OpenAI chat `choices[0].delta.content`, Responses `delta`,
 *   Anthropic `delta.text`) is preferred over one that is not (the Responses `…done` events repeat the
 *   whole text under `text`); Gemini, whose stream is plain response objects, has only the latter kind.
 * The result must assemble, through the same adapter, to what the adapter's stream assembles to; when
 * it does not, the adapter's stream is served as it is: its pieces are bigger, but never wrong.
 */

type Path = Array<string | number>
interface Run {
  start: number
  end: number
  path: Path
}

/**
 * The stream with its text deltas re-split into pieces of `chunkSize` characters.
 *
 * @example
 * splitTextDeltas(openaiChat, response, openaiChat.writeStream(response, {}), 4)
 */
export function splitTextDeltas(
  adapter: ProviderAdapter,
  response: NormalizedResponse,
  events: SseChunk[],
  chunkSize: number,
): SseChunk[] {
  const text = response.parts.find((p) => p.type === 'text')?.text
  if (!text) return events
  const parsed = events.map((e) => parseJson(e.data))
  const runs = findRuns(parsed, text).sort(
    (a, b) => Number(isDeltaPath(b.path)) - Number(isDeltaPath(a.path)),
  )
  const baseline = adapter.assembleStream(events)
  for (const run of runs) {
    const out = [
      ...events.slice(0, run.start),
      ...pieces(events, parsed, run, text, chunkSize),
      ...events.slice(run.end),
    ]
    renumber(out)
    if (isDeepStrictEqual(adapter.assembleStream(out), baseline)) return out
  }
  return events
}

/** Every run of consecutive events whose strings at one path join up to exactly `text`. */
function findRuns(parsed: Array<JsonValue | undefined>, text: string): Run[] {
  const runs: Run[] = []
  parsed.forEach((json, start) => {
    if (json === undefined) return
    for (const [path, first] of stringLeaves(json)) {
      if (first === '' || !text.startsWith(first)) continue
      let joined = first
      let end = start + 1
      while (joined.length < text.length && end < parsed.length) {
        const next = getAt(parsed[end], path)
        if (typeof next !== 'string' || next === '' || !text.startsWith(joined + next)) break
        joined += next
        end++
      }
      if (joined === text) runs.push({ start, end, path })
    }
  })
  return runs
}

/**
 * The run written again with one event per piece. The first piece copies the run's first event and the
 * last piece its last one (they may carry more than text: a role, a finish reason); the pieces between
 * copy an event from the middle of the run when there is one.
 */
function pieces(
  events: SseChunk[],
  parsed: Array<JsonValue | undefined>,
  run: Run,
  text: string,
  chunkSize: number,
): SseChunk[] {
  const count = Math.ceil(text.length / chunkSize)
  const last = run.end - 1
  const middle = run.end - run.start >= 3 ? run.start + 1 : run.start
  const out: SseChunk[] = []
  for (let n = 0; n < count; n++) {
    const at = n === 0 ? run.start : n === count - 1 ? last : middle
    const piece = text.slice(n * chunkSize, (n + 1) * chunkSize)
    out.push({
      ...(events[at] as SseChunk),
      data: JSON.stringify(setAt(parsed[at] as JsonValue, run.path, piece)),
    })
  }
  return out
}

function isDeltaPath(path: Path): boolean {
  return path.some((segment) => typeof segment === 'string' && /delta/i.test(segment))
}

/** Streams that number their events (OpenAI Responses' `sequence_number`) must keep counting by one. */
function renumber(events: SseChunk[]): void {
  let next: number | undefined
  events.forEach((event, i) => {
    const json = parseJson(event.data)
    if (!isObject(json) || typeof json.sequence_number !== 'number') return
    next ??= json.sequence_number
    if (json.sequence_number !== next)
      events[i] = { ...event, data: JSON.stringify({ ...json, sequence_number: next }) }
    next++
  })
}

function stringLeaves(value: JsonValue, path: Path = []): Array<[Path, string]> {
  if (typeof value === 'string') return [[path, value]]
  if (Array.isArray(value)) return value.flatMap((v, i) => stringLeaves(v, [...path, i]))
  if (isObject(value)) return Object.entries(value).flatMap(([k, v]) => stringLeaves(v, [...path, k]))
  return []
}

function getAt(value: JsonValue | undefined, path: Path): JsonValue | undefined {
  let at = value
  for (const segment of path) {
    if (Array.isArray(at) && typeof segment === 'number') at = at[segment]
    else if (isObject(at) && typeof segment === 'string') at = at[segment]
    else return undefined
  }
  return at
}

function setAt(value: JsonValue, path: Path, replacement: JsonValue): JsonValue {
  const [head, ...rest] = path
  if (head === undefined) return replacement
  if (Array.isArray(value)) return value.map((v, i) => (i === head ? setAt(v, rest, replacement) : v))
  if (isObject(value) && typeof head === 'string') {
    return { ...value, [head]: setAt(value[head] as JsonValue, rest, replacement) }
  }
  return value
}

function isObject(value: unknown): value is { [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function parseJson(data: string): JsonValue | undefined {
  try {
    return JSON.parse(data) as JsonValue
  } catch {
    return undefined
  }
}
