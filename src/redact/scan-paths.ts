import { readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { CrashlabError } from '../errors.ts'
import { type ScanContext, scanContext } from './internal/scan-context.ts'
import { scanDocumentWith } from './scan-document.ts'
import { scanTextWith } from './scan-text.ts'
import type { ScanFinding, ScanOptions, ScanReport } from './scan-types.ts'

/** What crashlab writes or reads: cassettes, AgentCase files, run stores, snapshots, HTML reports. */
const SCANNED = /\.(?:json|agentcase|jsonl|snap|html)$/i

/** Dependencies and hidden folders are not ours to scan, except crashlab's own store. */
function skipDir(name: string): boolean {
  return name === 'node_modules' || (name.startsWith('.') && name !== '.crashlab')
}

async function collect(root: string, out: string[]): Promise<void> {
  const entries = await readdir(root, { withFileTypes: true })
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  for (const e of entries) {
    const path = join(root, e.name)
    // Symlinked folders are not followed: a link back up the tree would loop forever.
    if (e.isDirectory()) {
      if (!skipDir(e.name)) await collect(path, out)
    } else if (e.isFile() && SCANNED.test(e.name)) out.push(path)
  }
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
  for (const file of files) findings.push(...scanFile(file, await readFile(file, 'utf8'), ctx))
  return { files: files.length, findings }
}
