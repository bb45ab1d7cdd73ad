import { prepareBodyFile } from '../../case/binary-bodies.ts'
import type { BodyFile } from '../../case/schema/step.ts'
import type { Redactor } from '../../redact/types.ts'

/**
 * Content types whose bodies are bytes, not text: stored as sidecar files beside the cassette (named by
 * their sha256), never as base64 inside it, and never decoded as text.
 */
const BINARY_PREFIXES = ['audio/', 'image/', 'video/']
const BINARY_TYPES = new Set(['application/octet-stream', 'application/pdf', 'multipart/form-data'])

/**
 * True for a binary content type: `audio/*`, `image/*`, `video/*`, `application/octet-stream`,
 * `application/pdf`, `multipart/form-data` (parameters such as `boundary=` are ignored).
 *
 * @example
 * isBinaryMediaType('multipart/form-data; boundary=----x') // true
 * isBinaryMediaType('application/json') // false
 */
export function isBinaryMediaType(contentType: string | null | undefined): boolean {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase()
  return BINARY_TYPES.has(type) || BINARY_PREFIXES.some((p) => type.startsWith(p))
}

/**
 * The stored form of a binary body: no JSON body, and a `bodyFile` whose bytes are kept in the run's
 * side table (see `prepareBodyFile`) for the cassette writer, with the text they hold redacted, and the
 * content type of the stored bytes (a multipart body is stored with a fixed boundary). Undefined for a
 * body that is not binary or is empty, which the caller reads as JSON or text as before.
 *
 * @example
 * Object.assign(wire, readBinaryBody(bytes, headers['content-type'], redactor) ?? readBody(bytes, headers['content-type']))
 */
export function readBinaryBody(
  bytes: Uint8Array,
  contentType: string | null | undefined,
  redactor?: Redactor,
): { body: null; bodyFile: BodyFile; contentType: string } | undefined {
  if (bytes.byteLength === 0 || !isBinaryMediaType(contentType)) return undefined
  // A copy: the caller hands the same bytes on (upstream, or to the agent's Response), which may detach them.
  const prepared = prepareBodyFile(bytes.slice(), contentType ?? '', { redactor })
  return { body: null, bodyFile: prepared.file, contentType: prepared.contentType }
}
