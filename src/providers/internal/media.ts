import { createHash } from 'node:crypto'
import type { MediaPart } from '../../case/schema/normalized.ts'

/**
 * Media placeholders shared by the adapters: a request carries images, audio and files as data: URLs,
 * bare base64, web URLs or provider file ids; the normalized shape keeps what they are and how big,
 * never the bytes. Inline bytes also get a sha256, so two different images of one size do not hash
 * to the same request.
 */

/** File extensions the providers accept, to name the media type of a URL or file name. */
const EXTENSION_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  pdf: 'application/pdf',
  txt: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  json: 'application/json',
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
  flac: 'audio/flac',
  ogg: 'audio/ogg',
  m4a: 'audio/mp4',
  mp4: 'video/mp4',
}

/**
 * The media type a file name or URL suggests by its extension, or `fallback`.
 *
 * @example
 * guessMediaType('https://example.com/cat.JPG?x=1', 'image/*') // 'image/jpeg'
 * guessMediaType('file-abc123', 'application/octet-stream')   // 'application/octet-stream'
 */
export function guessMediaType(nameOrUrl: string, fallback: string): string {
  let path = nameOrUrl
  try {
    path = new URL(nameOrUrl).pathname
  } catch {
    // a bare file name, not a URL
  }
  const dot = path.lastIndexOf('.')
  if (dot === -1 || dot < path.lastIndexOf('/')) return fallback
  return EXTENSION_TYPES[path.slice(dot + 1).toLowerCase()] ?? fallback
}

/**
 * A placeholder for inline bytes: their media type, count and sha256.
 *
 * @example
 * mediaFromBytes('image/png', Buffer.from('abc')) // { type: 'media', mediaType: 'image/png', bytes: 3, sha256: 'ba78…' }
 */
export function mediaFromBytes(mediaType: string, bytes: Uint8Array): MediaPart {
  return {
    type: 'media',
    mediaType,
    bytes: bytes.byteLength,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  }
}

/**
 * A placeholder for base64 bytes (Anthropic `source.data`, Gemini `inlineData.data`, OpenAI audio).
 *
 * @example
 * mediaFromBase64('audio/wav', 'UklGRg==').bytes // 4
 */
export function mediaFromBase64(mediaType: string, base64: string): MediaPart {
  return mediaFromBytes(mediaType, Buffer.from(base64, 'base64'))
}

/**
 * A placeholder for a data: URL (base64 or percent-encoded), or undefined when `url` is not one.
 * The media type comes from the URL itself, or `fallback` when it names none.
 *
 * @example
 * mediaFromDataUrl('data:image/png;base64,iVBORw0KGgo=')?.bytes // 8
 * mediaFromDataUrl('https://example.com/a.png')                 // undefined
 */
export function mediaFromDataUrl(url: string, fallback = 'application/octet-stream'): MediaPart | undefined {
  if (!url.startsWith('data:')) return undefined
  const comma = url.indexOf(',')
  if (comma === -1) return undefined
  const meta = url.slice(5, comma).split(';')
  const mediaType = meta[0] ? meta[0].toLowerCase() : fallback
  const payload = url.slice(comma + 1)
  if (meta.slice(1).some((m) => m.toLowerCase() === 'base64')) return mediaFromBase64(mediaType, payload)
  let bytes: Uint8Array
  try {
    bytes = Buffer.from(decodeURIComponent(payload), 'utf8')
  } catch {
    bytes = Buffer.from(payload, 'utf8')
  }
  return mediaFromBytes(mediaType, bytes)
}

/**
 * A placeholder for media passed by reference: a web URL or a provider file id. The bytes are not
 * known, so `bytes` is null; a data: URL is never a reference and is measured instead.
 *
 * @example
 * mediaFromRef('https://example.com/a.png', 'image/*') // { type: 'media', mediaType: 'image/png', bytes: null, ref: 'https://example.com/a.png' }
 */
export function mediaFromRef(ref: string, fallback: string): MediaPart {
  const inline = mediaFromDataUrl(ref, fallback)
  if (inline) return inline
  return { type: 'media', mediaType: guessMediaType(ref, fallback), bytes: null, ref }
}
