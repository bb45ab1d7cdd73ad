import { createHash } from 'node:crypto'
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
 * Describes `bytes` as a `bodyFile` and keeps the bytes in the side table.
 *
 * @example
 * const file = createBodyFile(new Uint8Array([0xff, 0xd8]), 'image/jpeg; q=1')
 * file // { sha256: '…', mediaType: 'image/jpeg', bytes: 2 }
 * binaryOf(file) // the two bytes
 */
export function createBodyFile(bytes: Uint8Array, contentType: string): BodyFile {
  const file: BodyFile = {
    sha256: sha256Hex(bytes),
    mediaType: (contentType.split(';')[0] ?? '').trim().toLowerCase() || 'application/octet-stream',
    bytes: bytes.byteLength,
  }
  table.set(file, bytes)
  return file
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
