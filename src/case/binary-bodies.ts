import { createHash } from 'node:crypto'
import { redactDocument } from '../redact/redact-document.ts'
import type { Redactor } from '../redact/types.ts'
import type { Run } from './schema/run.ts'
import type { BodyFile, Step, WireRequest, WireResponse } from './schema/step.ts'

/**
 * The bytes of binary bodies, beside the run rather than inside it. A step's `bodyFile` says what the
 * body is (sha256, media type, size) and is plain JSON; the bytes themselves are kept in this side
 * table, keyed by that `bodyFile` object, so that they are never serialized into the cassette and are
 * freed with the run. The recorder attaches them, `loadCassette` attaches the sidecar files' bytes, the
 * writer and the replay look them up.
 */
const table = new WeakMap<BodyFile, Uint8Array>()

/**
 * How a body's bytes are prepared before they are hashed and kept.
 *
 * @example
 * const options: BodyFileOptions = { redactor: createRedactor({ keys: ['x-tenant-secret'] }) }
 */
export interface BodyFileOptions {
  /** The redaction rules text in the body is redacted with; the default redactor when omitted. */
  redactor?: Redactor
}

/**
 * A body as it is stored: its `bodyFile` (bytes in the side table) and the content type that describes
 * the stored bytes, which differs from the one given only for a multipart body (see `prepareBodyFile`).
 *
 * @example
 * const { file, contentType } = prepareBodyFile(bytes, 'multipart/form-data; boundary=----x')
 */
export interface PreparedBodyFile {
  file: BodyFile
  contentType: string
}

/**
 * Describes `bytes` as a `bodyFile` and keeps them in the side table, after redacting the text they
 * may hold (see `prepareBodyFile`): the sha256 is the one of the stored, redacted bytes.
 *
 * @example
 * const file = createBodyFile(new Uint8Array([0xff, 0xd8]), 'image/jpeg; q=1')
 * file // { sha256: '…', mediaType: 'image/jpeg', bytes: 2 }
 * binaryOf(file) // the two bytes
 */
export function createBodyFile(
  bytes: Uint8Array,
  contentType: string,
  options: BodyFileOptions = {},
): BodyFile {
  return prepareBodyFile(bytes, contentType, options).file
}

/**
 * Like `createBodyFile`, and says which content type the stored bytes have. Before the bytes are hashed,
 * what can hold a secret in text is redacted with `options.redactor`, as the cassette's JSON is:
 *
 * - a text-like body (`text/*`, JSON, XML, `application/x-www-form-urlencoded`) that came as bytes:
 *   its text, each form field under its name, a JSON body as a document (re-serialized when a value
 *   was replaced);
 * - `multipart/form-data`: each field that is not a file, under its name. File parts (those with a
 *   `filename`, or a non-text content type) are kept byte for byte and are not scanned. The boundary,
 *   which clients draw at random for every request, is replaced by a fixed one, so that the same
 *   upload hashes the same at record and at replay; the returned content type names it.
 *
 * Audio, images, video and other bytes are kept as they are. A body that is not valid UTF-8 where text
 * is expected, or a multipart body that cannot be parsed, is kept as it is (not scanned). Preparing
 * prepared bytes again changes nothing, so a recording and its replay agree.
 *
 * @example
 * const { file, contentType } = prepareBodyFile(formBytes, 'multipart/form-data; boundary=----formdata-undici-0123')
 * contentType // 'multipart/form-data; boundary=----crashlab-form-boundary'
 */
export function prepareBodyFile(
  bytes: Uint8Array,
  contentType: string,
  options: BodyFileOptions = {},
): PreparedBodyFile {
  const mediaType = (contentType.split(';')[0] ?? '').trim().toLowerCase() || 'application/octet-stream'
  const prepared = redactBodyBytes(bytes, contentType, mediaType, options.redactor)
  const file: BodyFile = { sha256: sha256Hex(prepared.bytes), mediaType, bytes: prepared.bytes.byteLength }
  table.set(file, prepared.bytes)
  return { file, contentType: prepared.contentType }
}

/**
 * Keeps `bytes` as the content of `file` (the loader does this for every sidecar it read).
 *
 * @example
 * attachBinary(step.response.wire.bodyFile, readFileSync(sidecar))
 */
export function attachBinary(file: BodyFile, bytes: Uint8Array): void {
  table.set(file, bytes)
}

/**
 * The bytes of a binary body, when this process has them (recorded here, or loaded with the cassette).
 *
 * @example
 * const bytes = binaryOf(wire.bodyFile)
 * if (bytes) return new Response(bytes, { headers: wire.headers })
 */
export function binaryOf(file: BodyFile | undefined): Uint8Array | undefined {
  return file ? table.get(file) : undefined
}

/** Lower-case hex sha256 of `bytes`. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex')
}

function wiresOf(step: Step): Array<WireRequest | WireResponse> {
  if (step.type === 'llm') {
    const out: Array<WireRequest | WireResponse> = [step.request.wire]
    if (step.response) out.push(step.response.wire)
    return out
  }
  if (step.type === 'http') return step.response ? [step.request, step.response] : [step.request]
  return []
}

/**
 * Every `bodyFile` of a run, request and response, in step order (a body sent twice appears twice).
 *
 * @example
 * bodyFilesOf(run).map((f) => f.sha256)
 */
export function bodyFilesOf(run: Run): BodyFile[] {
  const out: BodyFile[] = []
  for (const step of Array.isArray(run?.steps) ? run.steps : []) {
    if (typeof step !== 'object' || step === null) continue
    for (const wire of wiresOf(step)) {
      const file = (wire as { bodyFile?: unknown } | null | undefined)?.bodyFile
      if (typeof file === 'object' && file !== null) out.push(file as BodyFile)
    }
  }
  return out
}

/**
 * The bytes of every binary body of `run` that this process holds, by sha256: what `writeCassette`
 * writes as sidecar files when no `binaries` option is given.
 *
 * @example
 * writeCassette(path, run, { binaries: collectBinaries(run) })
 */
export function collectBinaries(run: Run): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>()
  for (const file of bodyFilesOf(run)) {
    const bytes = table.get(file)
    if (bytes && typeof file.sha256 === 'string') out.set(file.sha256, bytes)
  }
  return out
}

// --- Redaction of the text a body carries as bytes ---------------------------------------------------

/** The boundary a stored multipart body is written with (a suffix is added if its content holds it). */
const FORM_BOUNDARY = '----crashlab-form-boundary'
const CRLF = Buffer.from('\r\n')
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

type TextKind = 'json' | 'form' | 'text'

function textKindOf(mediaType: string): TextKind | undefined {
  if (mediaType === 'application/x-www-form-urlencoded') return 'form'
  if (mediaType === 'application/json' || mediaType.endsWith('+json') || mediaType.endsWith('/x-ndjson'))
    return 'json'
  if (mediaType.startsWith('text/') || mediaType === 'application/xml' || mediaType.endsWith('+xml'))
    return 'text'
  return undefined
}

function redactBodyBytes(
  bytes: Uint8Array,
  contentType: string,
  mediaType: string,
  redactor: Redactor | undefined,
): { bytes: Uint8Array; contentType: string } {
  if (mediaType === 'multipart/form-data') {
    return redactMultipart(bytes, contentType, redactor) ?? { bytes, contentType }
  }
  const kind = textKindOf(mediaType)
  if (!kind) return { bytes, contentType }
  const text = decodeText(bytes)
  const redacted = text === undefined ? undefined : redactText(text, kind, undefined, redactor)
  return { bytes: redacted === undefined ? bytes : Buffer.from(redacted), contentType }
}

function decodeText(bytes: Uint8Array): string | undefined {
  try {
    return utf8.decode(bytes)
  } catch {
    return undefined // not UTF-8: not text we can scan
  }
}

/** The redacted text, or undefined when nothing in it changed. `name` is the form field it sits under. */
function redactText(text: string, kind: TextKind, name: string | undefined, redactor?: Redactor) {
  if (kind === 'form') return redactForm(text, redactor)
  if (kind === 'json') {
    let doc: unknown
    try {
      doc = JSON.parse(text)
    } catch {
      return redactText(text, 'text', name, redactor)
    }
    const out = redactDocument(doc, { redactor }).value
    return out === doc ? undefined : JSON.stringify(out)
  }
  // Under its field name, so that a field called `password` or `api_key` is replaced whole.
  const doc = name === undefined ? text : { [name]: text }
  const out = redactDocument(doc, { redactor }).value
  if (out === doc) return undefined
  return typeof out === 'string' ? out : String((out as Record<string, unknown>)[name as string])
}

/** `a=1&api_key=…`: each value under its name; pairs that did not change keep their exact bytes. */
function redactForm(text: string, redactor?: Redactor): string | undefined {
  let changed = false
  const pairs = text.split('&').map((pair) => {
    const eq = pair.indexOf('=')
    if (eq < 0) return pair
    let name: string
    let value: string
    try {
      name = decodeURIComponent(pair.slice(0, eq).replace(/\+/g, ' '))
      value = decodeURIComponent(pair.slice(eq + 1).replace(/\+/g, ' '))
    } catch {
      return pair // not percent-encoded properly: left as it came
    }
    const out = redactText(value, 'text', name, redactor)
    if (out === undefined) return pair
    changed = true
    return `${pair.slice(0, eq)}=${encodeURIComponent(out)}`
  })
  return changed ? pairs.join('&') : undefined
}

interface FormPart {
  head: Buffer
  body: Buffer
}

/**
 * A multipart/form-data body with its text fields redacted and written with the fixed boundary;
 * undefined when it cannot be parsed (then it is kept as it came).
 */
function redactMultipart(
  bytes: Uint8Array,
  contentType: string,
  redactor: Redactor | undefined,
): { bytes: Uint8Array; contentType: string } | undefined {
  const boundary = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType)
  const given = boundary?.[1] ?? boundary?.[2]
  if (!given) return undefined
  const parsed = parseMultipart(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), given)
  if (!parsed) return undefined
  for (const part of parsed.parts) {
    const field = textFieldOf(part.head)
    if (!field) continue
    const text = decodeText(part.body)
    const out = text === undefined ? undefined : redactText(text, field.kind, field.name, redactor)
    if (out !== undefined) part.body = Buffer.from(out)
  }
  let chosen = FORM_BOUNDARY
  const holds = (b: string) =>
    parsed.parts.some((p) => p.head.includes(b) || p.body.includes(b)) ||
    parsed.preamble.includes(b) ||
    parsed.epilogue.includes(b)
  for (let n = 1; holds(chosen); n++) chosen = `${FORM_BOUNDARY}-${n}`
  const delimiter = Buffer.from(`--${chosen}`)
  const out: Buffer[] = [parsed.preamble]
  for (const part of parsed.parts) {
    out.push(
      delimiter,
      CRLF,
      part.head,
      part.head.length > 0 ? Buffer.from('\r\n\r\n') : CRLF,
      part.body,
      CRLF,
    )
  }
  out.push(delimiter, Buffer.from('--'), parsed.epilogue)
  return {
    bytes: new Uint8Array(Buffer.concat(out)),
    contentType: contentType.replace(boundary![0], `; boundary=${chosen}`),
  }
}

/** RFC 7578 / 2046: `--boundary CRLF headers CRLF CRLF body CRLF --boundary … --boundary--`. */
function parseMultipart(
  buf: Buffer,
  boundary: string,
): { preamble: Buffer; parts: FormPart[]; epilogue: Buffer } | undefined {
  const delimiter = Buffer.from(`--${boundary}`)
  const next = Buffer.from(`\r\n--${boundary}`)
  const first = buf.indexOf(delimiter)
  if (first < 0 || (first > 0 && buf.indexOf(next) !== first - 2)) return undefined
  const parts: FormPart[] = []
  let pos = first + delimiter.length
  for (;;) {
    if (buf[pos] === 0x2d && buf[pos + 1] === 0x2d) {
      return { preamble: buf.subarray(0, first), parts, epilogue: buf.subarray(pos + 2) }
    }
    while (buf[pos] === 0x20 || buf[pos] === 0x09) pos++ // transport padding
    if (buf[pos] !== 0x0d || buf[pos + 1] !== 0x0a) return undefined
    pos += 2
    let head: Buffer
    let start: number
    if (buf[pos] === 0x0d && buf[pos + 1] === 0x0a) {
      head = buf.subarray(pos, pos)
      start = pos + 2
    } else {
      const end = buf.indexOf('\r\n\r\n', pos)
      if (end < 0) return undefined
      head = buf.subarray(pos, end)
      start = end + 4
    }
    const end = buf.indexOf(next, start)
    if (end < 0) return undefined
    parts.push({ head, body: buf.subarray(start, end) })
    pos = end + next.length
  }
}

/** A part that is a text field (no filename, a text content type or none): its name and how to read it. */
function textFieldOf(head: Buffer): { name: string; kind: TextKind } | undefined {
  const text = head.toString('latin1')
  const disposition = /^content-disposition:(.*)$/im.exec(text)?.[1]
  if (!disposition || /;\s*filename\*?=/i.test(disposition)) return undefined
  const name = /;\s*name="([^"]*)"|;\s*name=([^;\s]+)/i.exec(disposition)
  const type = /^content-type:\s*([^;\r\n]*)/im.exec(text)?.[1]?.trim().toLowerCase()
  const kind = type ? textKindOf(type) : 'text'
  if (!kind) return undefined
  return { name: Buffer.from(name?.[1] ?? name?.[2] ?? '', 'latin1').toString('utf8'), kind }
}
