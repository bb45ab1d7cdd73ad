import { type FileHandle, open, readFile, stat } from 'node:fs/promises'
import { CrashlabError } from '../errors.ts'
import { type ScanContext, scanContext } from './internal/scan-context.ts'
import { scanString } from './internal/scan-string.ts'
import { collectProjectFiles } from './project-files.ts'
import { scanDocumentWith } from './scan-document.ts'
import { scanTextWith } from './scan-text.ts'
import type { ScanFinding, ScanOptions, ScanReport } from './scan-types.ts'

/** What crashlab writes or reads: cassettes, AgentCase files, run stores, snapshots, HTML reports. */
const SCANNED = /\.(?:json|agentcase|jsonl|snap|html)$/i

/**
 * Files up to this size are read whole and scanned as documents (the cassette size bound, 16 MiB).
 * Larger ones are scanned as text, `PIECE_BYTES` at a time, each piece read with `OVERLAP_BYTES` of
 * its neighbours so that a secret across a boundary is still seen whole: memory stays bounded whatever
 * the file (a 200 MB log once took 824 MB and ended in a RangeError).
 */
const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024
const PIECE_BYTES = 4 * 1024 * 1024
const OVERLAP_BYTES = 64 * 1024

function collect(root: string, out: string[]): Promise<void> {
  return collectProjectFiles(root, SCANNED, out)
}

function scanFile(file: string, text: string, ctx: ScanContext): ScanFinding[] {
  const fileCtx: ScanContext = { ...ctx, file }
  if (/\.jsonl$/i.test(file)) {
    const findings: ScanFinding[] = []
    text.split('\n').forEach((line, i) => {
      if (line.trim() === '') return
      try {
        findings.push(...scanDocumentWith(JSON.parse(line), fileCtx, i + 1))
      } catch {
        findings.push(...scanTextWith(line, fileCtx, i + 1))
      }
    })
    return findings
  }
  if (/\.(?:json|agentcase)$/i.test(file)) {
    try {
      return scanDocumentWith(JSON.parse(text), fileCtx)
    } catch {
      // A broken JSON file may still hold a secret: read it as text rather than skip it.
      return scanTextWith(text, fileCtx)
    }
  }
  return scanTextWith(text, fileCtx)
}

/**
 * Scans files and folders for leaked secrets. Folders are walked recursively for `*.json`,
 * `*.agentcase`, `*.jsonl`, `*.cassette.json`, `*.snap` and `*.html`, skipping `node_modules` and
 * hidden folders (except `.crashlab`); a file named explicitly is scanned whatever its extension.
 * JSON files are scanned as documents (findings carry a JSON Pointer); a file that does not parse is
 * scanned as text.
 *
 * @example
 * const report = await scanPaths(['__cassettes__', '.crashlab'])
 * if (report.findings.length) { console.error(formatScanReport(report)); process.exitCode = 1 }
 */
export async function scanPaths(paths: string[], options: ScanOptions = {}): Promise<ScanReport> {
  const ctx = scanContext(options)
  const files: string[] = []
  for (const p of paths) {
    const info = await stat(p).catch((cause: unknown) => {
      throw new CrashlabError(
        'E_FILE_NOT_FOUND',
        `cannot scan ${p}: no such file or folder; check the path`,
        {
          cause,
          subject: p,
        },
      )
    })
    if (info.isDirectory()) await collect(p, files)
    else files.push(p)
  }
  const findings: ScanFinding[] = []
  for (const file of files) findings.push(...(await scanOne(file, ctx)))
  return { files: files.length, findings }
}

async function scanOne(file: string, ctx: ScanContext): Promise<ScanFinding[]> {
  try {
    const { size } = await stat(file)
    if (size > MAX_DOCUMENT_BYTES) return await scanInPieces(file, size, ctx)
    return scanFile(file, await readFile(file, 'utf8'), ctx)
  } catch (cause) {
    if (cause instanceof CrashlabError) throw cause
    throw new CrashlabError(
      'E_FILE_NOT_FOUND',
      `cannot scan ${file}: it could not be read (${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message}); check its permissions, or leave it out of the paths`,
      { cause, subject: file },
    )
  }
}

/**
 * A file over `MAX_DOCUMENT_BYTES`, as text, one piece at a time. Piece k covers the bytes
 * [start, end) and is read with up to `OVERLAP_BYTES` before and after; only findings that start inside
 * [start, end) are kept, so each is reported once, with its line. Boundaries are moved back to the start
 * of a UTF-8 character.
 */
async function scanInPieces(file: string, size: number, ctx: ScanContext): Promise<ScanFinding[]> {
  const fileCtx: ScanContext = { ...ctx, file }
  const findings: ScanFinding[] = []
  let handle: FileHandle | undefined
  try {
    handle = await open(file, 'r')
    let start = 0
    let linesBefore = 0 // newlines in [0, start)
    while (start < size) {
      const from = Math.max(0, start - OVERLAP_BYTES)
      const to = Math.min(size, start + PIECE_BYTES + OVERLAP_BYTES)
      const buf = Buffer.alloc(to - from)
      const { bytesRead } = await handle.read(buf, 0, buf.length, from)
      const bytes = buf.subarray(0, bytesRead)
      let end = Math.min(size, start + PIECE_BYTES, from + bytes.length)
      while (end < size && end > start && (bytes[end - from]! & 0xc0) === 0x80) end--
      const text = bytes.toString('utf8')
      // `start` and `end` are character starts, so these prefixes decode exactly as in `text`.
      const mainFrom = charLength(bytes, start - from)
      const mainTo = charLength(bytes, end - from)
      const hits = scanString(text, fileCtx, { allowed: false, text: true }).filter(
        (f) => f.start >= mainFrom && f.start < mainTo,
      )
      if (hits.length > 0) {
        // Lines: those before the piece's own bytes, plus the newlines from there to each hit.
        const starts: number[] = []
        for (let i = text.indexOf('\n', mainFrom); i !== -1 && i < mainTo; i = text.indexOf('\n', i + 1))
          starts.push(i)
        for (const f of hits) {
          let lo = 0
          let hi = starts.length
          while (lo < hi) {
            const mid = (lo + hi) >> 1
            if (starts[mid]! < f.start) lo = mid + 1
            else hi = mid
          }
          const n = lo
          findings.push({ file, pointer: null, line: linesBefore + n + 1, rule: f.rule, excerpt: f.excerpt })
        }
      }
      for (let i = start - from; i < end - from; i++) if (bytes[i] === 0x0a) linesBefore++
      if (end <= start) break
      start = end
    }
  } finally {
    await handle?.close()
  }
  return findings
}

/** How many UTF-16 units the first `byteCount` bytes decode to. */
function charLength(bytes: Buffer, byteCount: number): number {
  return bytes.subarray(0, byteCount).toString('utf8').length
}
