import type { Redactor } from '../../redact/index.ts'
import { redactDocument } from '../../redact/index.ts'
import type { JsonObject } from '../schema/json.ts'
import type { AgentCase, AgentCaseRedactionRecord, AgentCaseRedactionStatus } from './schema.ts'

/**
 * The redaction pass of `writeAgentCase`. Only free JSON is redacted (payloads, extensions, user
 * metadata, model configuration, replay configuration): the core fields are ids, enums and timestamps,
 * and a redactor rewriting one of those would turn a valid case into an invalid one.
 */

const PARTIAL_WARNING =
  'a redaction rule failed while writing this case: the values it looked at were dropped and the capture is marked partial'

/**
 * A redacted copy of `c` (the input is not mutated), with the records merged into `redaction`, its
 * status updated, each touched event's `redaction_status` set, and, when a rule failed, completeness
 * lowered to at least `partial`.
 *
 * @example
 * const safe = redactAgentCase(c)
 * safe.redaction.records // [{ field_path: '/events/1/payload/headers/authorization', … }]
 */
export function redactAgentCase(c: AgentCase, redactor?: Redactor): AgentCase {
  const records: AgentCaseRedactionRecord[] = []
  const warnings: string[] = []
  let partial = false
  const redact = (
    value: JsonObject,
    pointer: string,
  ): { value: JsonObject; hits: number; partial: boolean } => {
    const r = redactDocument(value, redactor ? { redactor } : {})
    for (const rec of r.records) {
      records.push({
        field_path: pointer + rec.path,
        rule_id: rec.rule,
        replacement_marker: rec.marker,
        irreversible: true,
      })
    }
    warnings.push(...r.warnings)
    partial ||= r.partial
    return { value: r.value, hits: r.records.length, partial: r.partial }
  }

  const events = c.events.map((e, i) => {
    const payload = redact(e.payload, `/events/${i}/payload`)
    const extensions = redact(e.extensions, `/events/${i}/extensions`)
    if (payload.hits + extensions.hits === 0 && !payload.partial && !extensions.partial) return e
    const status: AgentCaseRedactionStatus = payload.partial || extensions.partial ? 'partial' : 'redacted'
    return { ...e, payload: payload.value, extensions: extensions.value, redaction_status: status }
  })
  const m = c.metadata
  const metadata = {
    ...m,
    user_metadata: redact(m.user_metadata, '/metadata/user_metadata').value,
    extensions: redact(m.extensions, '/metadata/extensions').value,
    model: m.model && {
      ...m.model,
      configuration: redact(m.model.configuration, '/metadata/model/configuration').value,
    },
  }
  const replay = c.replay && {
    ...c.replay,
    changed_configuration: redact(c.replay.changed_configuration, '/replay/changed_configuration').value,
    extensions: redact(c.replay.extensions, '/replay/extensions').value,
  }
  const extensions = redact(c.extensions, '/extensions').value
  const redactionExtensions = redact(c.redaction.extensions, '/redaction/extensions').value

  const seen = new Set(c.redaction.records.map((r) => `${r.field_path}\u0000${r.rule_id}`))
  const merged = [
    ...c.redaction.records,
    ...records.filter((r) => !seen.has(`${r.field_path}\u0000${r.rule_id}`)),
  ]
  let status = c.redaction.status
  if (partial || status === 'partial') status = 'partial'
  else if (merged.length > 0) status = 'redacted'
  return {
    ...c,
    metadata,
    events,
    replay,
    extensions,
    completeness: partial && c.completeness === 'complete' ? 'partial' : c.completeness,
    redaction: {
      ...c.redaction,
      status,
      records: merged,
      warnings: partial ? [...c.redaction.warnings, ...warnings, PARTIAL_WARNING] : c.redaction.warnings,
      potentially_sensitive_unredacted: c.redaction.potentially_sensitive_unredacted || partial,
      extensions: redactionExtensions,
    },
  }
}
