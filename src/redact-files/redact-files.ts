import { readFile, stat } from 'node:fs/promises'
import { loadAgentCase } from '../case/agentcase/load-agent-case.ts'
import { redactAgentCase } from '../case/agentcase/redact-case.ts'
import { writeAgentCase } from '../case/agentcase/write-agent-case.ts'
import { loadCassette } from '../case/cassette-load.ts'
import { writeCassette } from '../case/cassette-write.ts'
import type { Run } from '../case/schema/run.ts'
import type { Step } from '../case/schema/step.ts'
import { matchable } from '../engine/matchable.ts'
import { CrashlabError, isCrashlabError } from '../errors.ts'
import { requestHash } from '../providers/request-hash.ts'
import { collectProjectFiles } from '../redact/project-files.ts'
import { redactDocument } from '../redact/redact-document.ts'
import type { Redactor } from '../redact/types.ts'

/**
 * What `redactFiles` did to one file: `rewritten` (or, with `check`, would be), `clean` (nothing the
 * current rules remove), `skipped` (JSON that is neither a cassette nor an AgentCase) or `error`.
 */
export interface RedactFileResult {
  path: string
  kind: 'cassette' | 'agentcase' | 'other'
  status: 'rewritten' | 'clean' | 'skipped' | 'error'
  /** Values removed, by rule id. */
  removed: Record<string, number>
  /** Why a file was skipped or failed. */
  reason?: string
}

/**
 * The report of `redactFiles`: one entry per file, in path order.
 *
 * @example
 * const report = await redactFiles(['__cassettes__'])
 * report.removed // 3
 */
export interface RedactFilesReport {
  files: RedactFileResult[]
  /** Values removed in all (or, with `check`, that would be). */
  removed: number
  /** True when `check` was set: nothing was written. */
  checked: boolean
}

export interface RedactFilesOptions {
  /** The rules; the defaults plus the process-wide `redaction.*` rules when omitted. */
  redactor?: Redactor
  /** Only report what would be removed; write nothing. */
  check?: boolean
}

const CASE_FILE = /\.(?:json|agentcase)$/i

async function filesOf(paths: readonly string[]): Promise<string[]> {
  const out: string[] = []
  for (const p of paths) {
    let st: Awaited<ReturnType<typeof stat>>
    try {
      st = await stat(p)
    } catch (cause) {
      throw new CrashlabError('E_FILE_NOT_FOUND', `[crashlab] no file or folder at ${p}. Check the path.`, {
        cause,
        subject: p,
      })
    }
    if (st.isDirectory()) await collectProjectFiles(p, CASE_FILE, out)
    else out.push(p)
  }
  return out
}

/** Counts records by rule. */
function tally(records: readonly { rule: string }[]): Record<string, number> {
  const out: Record<string, number> = {}
  for (const r of records) out[r.rule] = (out[r.rule] ?? 0) + 1
  return out
}

/**
 * The run with the request hash of every model call whose request today's rules change taken again,
 * as a recording made today would have taken it: a replay then finds the call by its stored hash.
 */
function rehash(run: Run, redacted: Run, redactor: Redactor | undefined): Run {
  let steps: Step[] | undefined
  run.steps.forEach((step, i) => {
    const after = redacted.steps[i]
    if (step.type !== 'llm' || after?.type !== 'llm') return
    const normalized = step.request.normalized
    if (!normalized || after.request.normalized === normalized) return
    const wire = step.request.wire
    const hash = requestHash({
      method: wire.method,
      url: wire.url,
      headers: wire.headers,
      normalized: matchable(normalized, redactor),
    })
    if (hash === step.request.requestHash) return
    steps ??= [...run.steps]
    steps[i] = { ...step, request: { ...step.request, requestHash: hash } }
  })
  return steps ? { ...run, steps } : run
}

async function redactOne(path: string, options: RedactFilesOptions): Promise<RedactFileResult> {
  const text = await readFile(path, 'utf8')
  let root: unknown
  try {
    root = JSON.parse(text)
  } catch {
    return { path, kind: 'other', status: 'skipped', removed: {}, reason: 'not JSON' }
  }
  const r = root && typeof root === 'object' && !Array.isArray(root) ? (root as Record<string, unknown>) : {}
  if ('format_name' in r) {
    const c = loadAgentCase(path)
    const after = redactAgentCase(c, options.redactor)
    const added = after.redaction.records.slice(c.redaction.records.length)
    if (added.length === 0) return { path, kind: 'agentcase', status: 'clean', removed: {} }
    if (!options.check) writeAgentCase(path, c, options.redactor ? { redactor: options.redactor } : {})
    return {
      path,
      kind: 'agentcase',
      status: 'rewritten',
      removed: tally(added.map((a) => ({ rule: a.rule_id }))),
    }
  }
  if ('format' in r && 'run' in r) {
    const { run } = loadCassette(path)
    const redacted = redactDocument(run, options.redactor ? { redactor: options.redactor } : {})
    if (redacted.records.length === 0) return { path, kind: 'cassette', status: 'clean', removed: {} }
    if (!options.check) {
      writeCassette(path, rehash(run, redacted.value, options.redactor), {
        ...(options.redactor ? { redactor: options.redactor } : {}),
        onWarning: () => {},
      })
    }
    return { path, kind: 'cassette', status: 'rewritten', removed: tally(redacted.records) }
  }
  return {
    path,
    kind: 'other',
    status: 'skipped',
    removed: {},
    reason: 'neither a cassette nor an AgentCase',
  }
}

/**
 * Rewrites cassettes, baselines and exports under today's redaction rules: the way out for a secret
 * that a file written under older rules (or before a rule was added) still holds. Each file is
 * loaded with its strict reader, redacted, and written back atomically by its own writer, so a file is
 * either left as it was or replaced whole. The request hash of every model call whose recorded request
 * changed is taken again, so the cassette keeps replaying. Folders are walked for `.json` and
 * `.agentcase` files (not `node_modules` or hidden folders other than `.crashlab`); JSON that is
 * neither a cassette nor an AgentCase is skipped and reported. A file that fails to load is reported
 * with its error code, and the others are still done.
 *
 * @example
 * const report = await redactFiles(['__cassettes__', 'baselines/'], { check: true })
 * if (report.removed > 0) console.log('secrets on disk: run crashlab redact without --check')
 */
export async function redactFiles(
  paths: readonly string[],
  options: RedactFilesOptions = {},
): Promise<RedactFilesReport> {
  const files = await filesOf(paths)
  const results: RedactFileResult[] = []
  for (const path of files) {
    try {
      results.push(await redactOne(path, options))
    } catch (err) {
      const reason = isCrashlabError(err)
        ? `${err.code}: ${err.message.replace(/^\[crashlab\] /, '').slice(0, 300)}`
        : `${err instanceof Error ? err.name : 'Error'}: could not read or write it`
      results.push({ path, kind: 'other', status: 'error', removed: {}, reason })
    }
  }
  const removed = results.reduce((n, f) => n + Object.values(f.removed).reduce((a, b) => a + b, 0), 0)
  return { files: results, removed, checked: options.check === true }
}
