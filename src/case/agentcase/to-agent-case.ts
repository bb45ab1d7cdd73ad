import { VERSION } from '../../version.ts'
import type { JsonObject } from '../schema/json.ts'
import type { EntryPoint, Run, RunLinks } from '../schema/run.ts'
import type { LlmStep } from '../schema/step.ts'
import { CRASHLAB_EXTENSION, CRASHLAB_EXTENSION_SCHEMA, type RootExtension } from './crashlab-extension.ts'
import { deriveUuid } from './internal/derive-ids.ts'
import { EventLog, isoAfter } from './internal/event-log.ts'
import { toAgentCaseOutcome } from './internal/outcome-mapping.ts'
import { mapRunRedaction } from './internal/redaction-mapping.ts'
import { appendException, appendStepEvents, type StepContext } from './internal/step-events.ts'
import { currentPlatform, currentRuntime } from './runtime-info.ts'
import {
  AGENTCASE_FORMAT_NAME,
  AGENTCASE_VERSION,
  type AgentCase,
  type AgentCasePlatform,
  type AgentCaseReplay,
  type AgentCaseRuntime,
} from './schema.ts'

/**
 * Options of `toAgentCase`; pin `runtime` and `platform` for exports that are byte-identical across machines.
 *
 * @example
 * toAgentCase(run, { platform: { system: 'Linux', release: 'ci', machine: 'x86_64' } })
 */
export interface ToAgentCaseOptions {
  /** `created_at`; the run's end (or start) by default, so that the same run always exports the same bytes. */
  createdAt?: string
  /** The writing runtime; this process (`node` and its version) by default. */
  runtime?: AgentCaseRuntime
  /** The writing platform; this machine by default. Pin it for byte-stable exports across machines. */
  platform?: AgentCasePlatform
}

/**
 * Exports a crashlab run as an AgentCase 0.1: `execution.start`, the events of every step (model
 * request/response, tool call/result, http exchanges as `custom` events, exceptions, retries), the run's
 * error, `execution.end`. Ids derive from the run id, timestamps from the step timings, so an export is
 * stable. Everything AgentCase has no field for travels under `extensions["dev.crashlab"]`, which makes
 * `fromAgentCase(toAgentCase(run))` equal to `run`. The result is not redacted again: `writeAgentCase`
 * does that on the way to disk.
 *
 * @example
 * const c = toAgentCase(run)
 * writeAgentCase('failures/refund.agentcase', c)
 */
export function toAgentCase(input: Run, options: ToAgentCaseOptions = {}): AgentCase {
  // A copy, so that the case shares no object with the run: editing one never changes the other.
  const run = structuredClone(input)
  const log = new EventLog(run.id)
  const startId = log.add('execution.start', {
    timestamp: run.startedAt,
    parent: null,
    payload: {
      name: run.name,
      input: run.input,
      ...(run.entryPoint && { entrypoint: describeEntryPoint(run.entryPoint) }),
    },
  })
  log.map('/name', '/events/0/payload/name')
  log.map('/input', '/events/0/payload/input')
  log.map('/metadata', '/metadata/user_metadata')

  const ctx: StepContext = { log, run, startId, callers: new Map() }
  for (const [i, step] of run.steps.entries()) appendStepEvents(ctx, step, i)

  const lastStepEnd = run.steps.reduce(
    (max, s) => Math.max(max, Date.parse(s.timing.startedAt) + s.timing.durationMs),
    Date.parse(run.startedAt),
  )
  const endedAt = run.endedAt ?? isoAfter(run.startedAt, lastStepEnd - Date.parse(run.startedAt))
  if (run.error) appendException(ctx, run.error, { parent: startId, at: endedAt, errorOf: 'run', path: '' })
  const outcome = toAgentCaseOutcome(run.status, run.outcome, run.error)
  log.add('execution.end', {
    timestamp: endedAt,
    parent: startId,
    payload: {
      outcome,
      duration_ms: Math.max(0, Date.parse(endedAt) - Date.parse(run.startedAt)) || 0,
      ...endReason(run),
      output: run.output,
    },
  })
  log.map('/output', `${log.lastPointer}/payload/output`)

  const rootExt: RootExtension = {
    schema: CRASHLAB_EXTENSION_SCHEMA,
    run: {
      id: run.id,
      tags: run.tags,
      status: run.status,
      outcome: run.outcome,
      entryPoint: run.entryPoint,
      endedAt: run.endedAt,
      usage: run.usage,
      cost: run.cost,
      gitSha: run.gitSha,
      links: run.links,
      checks: run.checks,
      findings: run.findings,
      diagnosis: run.diagnosis,
      fixes: run.fixes,
      redaction: run.redaction,
    },
  }
  const firstLlm = run.steps.find((s): s is LlmStep => s.type === 'llm')
  const c: AgentCase = {
    format_name: AGENTCASE_FORMAT_NAME,
    format_version: AGENTCASE_VERSION,
    case_id: deriveUuid(run.id, 'case'),
    execution_id: deriveUuid(run.id, 'execution'),
    created_at: options.createdAt ?? run.endedAt ?? run.startedAt,
    metadata: {
      reproagent_version: `crashlab/${VERSION}`,
      runtime: options.runtime ?? currentRuntime(),
      platform: options.platform ?? currentPlatform(),
      provider: firstLlm ? { provider_id: firstLlm.provider } : null,
      model: firstLlm
        ? {
            model_id: String(log.events.find((e) => e.event_type === 'model.request')?.payload.model),
            configuration: (firstLlm.request.normalized?.params ?? {}) as JsonObject,
          }
        : null,
      integration: { integration_id: 'crashlab', integration_version: VERSION },
      user_metadata: run.metadata,
      extensions: {},
    },
    events: log.events,
    outcome,
    completeness: run.completeness,
    redaction: {
      status: 'none',
      records: [],
      warnings: [],
      potentially_sensitive_unredacted: false,
      extensions: {},
    },
    replay: replayOf(run.links, run.startedAt),
    extensions: { [CRASHLAB_EXTENSION]: rootExt as unknown as JsonObject },
  }
  const { redaction, redactedEvents } = mapRunRedaction(run.redaction, log.pointers, c)
  c.redaction = redaction
  const unmarked = run.redaction.status === 'partial' ? 'unknown' : 'none'
  log.events.forEach((e, i) => {
    e.redaction_status = redactedEvents.has(i) ? 'redacted' : unmarked
  })
  return c
}

function describeEntryPoint(e: EntryPoint): string {
  return e.kind === 'module' ? `${e.module}:${e.export}` : `${e.file} > ${e.test}`
}

function endReason(run: Run): { reason?: string } {
  if (run.status === 'error' && run.error) return { reason: `${run.error.name}: ${run.error.message}` }
  if (run.status === 'incomplete') return { reason: 'the run did not end (crashlab status "incomplete")' }
  if (run.outcome === 'fail') {
    const failed = run.checks.filter((c) => !c.passed).map((c) => c.name)
    return { reason: failed.length ? `failed checks: ${failed.join(', ')}` : 'crashlab outcome "fail"' }
  }
  return {}
}

/**
 * A crashlab replay serves every LLM and tool call from the cassette with the network blocked: a `mock`
 * replay. A fork replays the steps before `forkStep` and runs the rest live with a patch, side-effect
 * tools blocked: a `live` replay whose changed configuration is the patch. The source case id is the
 * id the source run's own export has, since both derive from the run id.
 */
function replayOf(links: RunLinks, at: string): AgentCaseReplay | null {
  const base = {
    replayed_at: at,
    unresolved_external_dependencies: [],
    live_side_effects_approved: false,
    extensions: {},
  }
  if (links.forkedFrom) {
    const step = links.forkStep ?? 0
    return {
      ...base,
      mode: 'live',
      source_case_id: deriveUuid(links.forkedFrom, 'case'),
      substitutions: [
        {
          target: `steps before ${step}`,
          description: `crashlab fork: steps before ${step} served from the source run's cassette, step ${step} on run live`,
        },
      ],
      changed_configuration: links.patch === undefined ? {} : { patch: links.patch },
      determinism_guarantee: 'none',
    }
  }
  if (links.replayOf) {
    return {
      ...base,
      mode: 'mock',
      source_case_id: deriveUuid(links.replayOf, 'case'),
      substitutions: [
        { target: 'model and tool calls', description: 'served from the recorded cassette, offline' },
      ],
      changed_configuration: {},
      // Interactions are replayed exactly (a divergence fails the replay), but the agent's own code may
      // still read clocks or randomness, so crashlab does not claim full determinism.
      determinism_guarantee: 'best_effort',
    }
  }
  return null
}
