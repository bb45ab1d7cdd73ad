import type { CaseFile } from './load-case-file.ts'

/** What `crashlab inspect` shows, the same for AgentCase files and cassettes. */
export interface CaseSummary {
  file: string
  kind: 'agentcase' | 'cassette'
  format: string
  name: string | null
  /** AgentCase: success | failure | ...; cassette: pass | fail | unknown. */
  outcome: string
  /** Cassettes only: ok | error | incomplete. */
  status: string | null
  completeness: string
  /** Events by event_type (AgentCase) or steps by type (cassette). */
  counts: Record<string, number>
  total: number
  redaction: { status: string; records: number; partial: boolean }
  /** Where this run came from, when it is a replay or a fork. */
  provenance: Record<string, string | number> | null
}

/** Reduces a loaded file to the facts `inspect` prints. */
export function summarize(file: CaseFile): CaseSummary {
  if (file.kind === 'agentcase') {
    const c = file.value
    const counts = countBy(c.events.map((e) => e.event_type))
    let provenance: CaseSummary['provenance'] = null
    if (c.replay) {
      provenance = { mode: c.replay.mode, source_case_id: c.replay.source_case_id }
      provenance.determinism_guarantee = c.replay.determinism_guarantee
      if (c.replay.substitutions.length > 0) provenance.substitutions = c.replay.substitutions.length
    }
    return {
      file: file.path,
      kind: 'agentcase',
      format: `AgentCase ${c.format_version}`,
      name: null,
      outcome: c.outcome,
      status: null,
      completeness: c.completeness,
      counts,
      total: c.events.length,
      redaction: {
        status: c.redaction.status,
        records: c.redaction.records.length,
        partial: c.redaction.status === 'partial',
      },
      provenance,
    }
  }
  const run = file.value.run
  const counts = countBy(run.steps.map((s) => s.type))
  const links: Record<string, string | number> = {}
  if (run.links.replayOf) links.replayOf = run.links.replayOf
  if (run.links.forkedFrom) links.forkedFrom = run.links.forkedFrom
  if (run.links.forkStep !== undefined) links.forkStep = run.links.forkStep
  return {
    file: file.path,
    kind: 'cassette',
    format: `crashlab cassette v${file.value.version} (written by crashlab ${file.value.creator.version})`,
    name: run.name,
    outcome: run.outcome,
    status: run.status,
    completeness: run.completeness,
    counts,
    total: run.steps.length,
    redaction: {
      status: run.redaction.status,
      records: run.redaction.records.length,
      partial: run.redaction.status === 'partial',
    },
    provenance: Object.keys(links).length > 0 ? links : null,
  }
}

/** The human form of a summary, one fact per line. */
export function formatSummary(s: CaseSummary): string {
  const unit = s.kind === 'agentcase' ? 'events' : 'steps'
  const counts = Object.entries(s.counts)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, n]) => `${k} ${n}`)
    .join(', ')
  const lines = [
    `${s.file}`,
    `  format        ${s.format}`,
    ...(s.name ? [`  name          ${s.name}`] : []),
    `  outcome       ${s.outcome}${s.status ? ` (status ${s.status})` : ''}`,
    `  completeness  ${s.completeness}`,
    `  ${unit.padEnd(13)} ${s.total}${counts ? `: ${counts}` : ''}`,
    `  redaction     ${s.redaction.status}, ${s.redaction.records} record${s.redaction.records === 1 ? '' : 's'}`,
    `  provenance    ${
      s.provenance
        ? Object.entries(s.provenance)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')
        : 'original run (not a replay or fork)'
    }`,
  ]
  return lines.join('\n')
}

function countBy(keys: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {}
  for (const k of keys) out[k] = (out[k] ?? 0) + 1
  return out
}
