import { CrashlabError } from '../../../errors.ts'
import type { JsonObject } from '../../schema/json.ts'
import type {
  FinishReason,
  Message,
  Params,
  Part,
  ToolCallPart,
  ToolDefinition,
} from '../../schema/normalized.ts'
import type { Run } from '../../schema/run.ts'
import type { HttpStep, LlmStep, Step, StepError, ToolStep } from '../../schema/step.ts'
import {
  CRASHLAB_EXTENSION,
  type EventExtension,
  EventExtensionSchema,
  type HttpStepExtension,
  type LlmStepExtension,
  type RootExtension,
  type ToolStepExtension,
} from '../crashlab-extension.ts'
import type { AgentCase, AgentCaseEvent } from '../schema.ts'
import { dollarPath, zodIssuesToValidationIssues } from './issue-paths.ts'
import { asObject, asString, errorFromException, usageFromPayload } from './payload-readers.ts'

/**
 * The way back for a case crashlab exported: the extension says which event starts which step, the
 * payloads give back what they carry exactly, the extension the rest. The inverse of `toAgentCase`.
 */

/**
 * Rebuilds the run of a crashlab export.
 *
 * @example
 * importCrashlabCase(c, RootExtensionSchema.parse(c.extensions['dev.crashlab']), 'run.agentcase')
 */
export function importCrashlabCase(c: AgentCase, root: RootExtension, source: string): Run {
  const children = new Map<string, AgentCaseEvent[]>()
  for (const e of c.events) {
    if (e.parent_event_id === null) continue
    const key = e.parent_event_id.toLowerCase()
    children.set(key, [...(children.get(key) ?? []), e])
  }
  const childOf = (e: AgentCaseEvent, type: string) =>
    children.get(e.event_id.toLowerCase())?.find((x) => x.event_type === type)

  const steps: Step[] = []
  const stepErrors = new Map<number, StepError>()
  let runError: StepError | null = null
  c.events.forEach((e, k) => {
    const ext = readExtension(e, k, source)
    if (!ext) return
    if (e.event_type === 'exception' && ext.errorOf !== undefined) {
      if (ext.errorOf === 'run') runError = errorFromException(e.payload)
      else stepErrors.set(ext.errorOf, errorFromException(e.payload))
    }
    const step = ext.step
    if (!step) return
    const index = steps.length
    if (step.type === 'llm') steps.push(llmStep(e, step, index, childOf(e, 'model.response'), source, c))
    else if (step.type === 'tool') steps.push(toolStep(e, step, index, childOf(e, 'tool.result')))
    else steps.push(httpStep(e, step, index))
  })
  for (const [i, error] of stepErrors) if (steps[i]) steps[i].error = error

  const start = c.events.find((e) => e.event_type === 'execution.start')
  const end = c.events.findLast((e) => e.event_type === 'execution.end')
  const r = root.run
  return {
    id: r.id,
    name: asString(start?.payload.name, ''),
    tags: r.tags,
    status: r.status,
    outcome: r.outcome,
    completeness: c.completeness,
    input: start?.payload.input ?? null,
    output: end?.payload.output ?? null,
    error: runError,
    entryPoint: r.entryPoint,
    startedAt: start?.timestamp ?? c.created_at,
    endedAt: r.endedAt,
    usage: r.usage,
    cost: r.cost,
    gitSha: r.gitSha,
    links: r.links,
    steps,
    checks: r.checks,
    findings: r.findings,
    diagnosis: r.diagnosis,
    fixes: r.fixes,
    redaction: r.redaction,
    metadata: c.metadata.user_metadata,
  }
}

function readExtension(e: AgentCaseEvent, k: number, source: string): EventExtension | undefined {
  const raw = e.extensions[CRASHLAB_EXTENSION]
  if (raw === undefined) return undefined
  const parsed = EventExtensionSchema.safeParse(raw)
  if (parsed.success) return parsed.data
  throw damaged(source, zodIssuesToValidationIssues(parsed.error.issues), [
    'events',
    k,
    'extensions',
    CRASHLAB_EXTENSION,
  ])
}

/**
 * The error for an extension that no longer has the shape crashlab wrote (edited by hand or by a tool).
 *
 * @example
 * throw damaged('run.agentcase', issues, ['extensions', 'dev.crashlab'])
 */
export function damaged(
  source: string,
  issues: Array<{ code: string; path: string; message: string }>,
  at: PropertyKey[],
): CrashlabError {
  const prefix = dollarPath(at)
  const shifted = issues.map((i) => ({ ...i, path: prefix + i.path.slice(1) }))
  return new CrashlabError(
    'E_AGENTCASE_INVALID',
    `${source}: the crashlab extension at ${prefix} is damaged (${shifted[0]?.message ?? 'unexpected shape'} at ${shifted[0]?.path ?? prefix}). Re-export the run, or import it without extensions: fromAgentCase(c, { useExtensions: false }).`,
    { subject: source, issues: shifted },
  )
}

function llmStep(
  e: AgentCaseEvent,
  ext: LlmStepExtension,
  index: number,
  responseEvent: AgentCaseEvent | undefined,
  source: string,
  c: AgentCase,
): LlmStep {
  const p = e.payload
  const input = asObject(p.input)
  let response: LlmStep['response'] = null
  if (responseEvent) {
    const k = c.events.indexOf(responseEvent)
    const rext = readExtension(responseEvent, k, source)?.response
    if (!rext)
      throw damaged(
        source,
        [{ code: 'missing', path: '$', message: 'no response object' }],
        ['events', k, 'extensions', CRASHLAB_EXTENSION],
      )
    const rp = responseEvent.payload
    const output = asObject(rp.output)
    response = {
      wire: rext.wire,
      normalized: rext.normalized
        ? {
            model: rext.model ?? null,
            requestId: rext.requestId ?? null,
            parts: output.parts as Part[],
            toolCalls: output.tool_calls as ToolCallPart[],
            finishReason: (rp.finish_reason ?? null) as FinishReason | null,
            usage: usageFromPayload(rp.usage),
          }
        : null,
      incomplete: rext.incomplete,
    }
  }
  return {
    index,
    timing: ext.timing,
    error: null,
    type: 'llm',
    provider: asString(p.provider, ''),
    endpoint: ext.endpoint,
    request: {
      wire: ext.request.wire,
      normalized: ext.request.normalized
        ? {
            model: asString(p.model, ''),
            system: input.system as Part[],
            messages: input.messages as Message[],
            tools: p.tools as ToolDefinition[],
            params: p.parameters as Params,
          }
        : null,
      requestHash: ext.request.requestHash,
    },
    response,
    ...(ext.cost !== undefined && { cost: ext.cost }),
  }
}

function toolStep(
  e: AgentCaseEvent,
  ext: ToolStepExtension,
  index: number,
  result: AgentCaseEvent | undefined,
): ToolStep {
  const p = e.payload
  const rp: JsonObject = result?.payload ?? {}
  return {
    index,
    timing: ext.timing,
    error: null,
    type: 'tool',
    name: asString(p.name, ''),
    ...(ext.callId && { callId: asString(p.call_id, '') }),
    args: p.arguments ?? null,
    ...(rp.result !== undefined && { result: rp.result }),
    sideEffects: ext.sideEffects,
    ...(ext.blocked !== undefined && { blocked: ext.blocked }),
    ...(ext.mcp !== undefined && { mcp: ext.mcp }),
  }
}

function httpStep(e: AgentCaseEvent, ext: HttpStepExtension, index: number): HttpStep {
  return {
    index,
    timing: ext.timing,
    error: null,
    type: 'http',
    label: asString(e.payload.label, 'unknown'),
    request: ext.request,
    response: ext.response,
  }
}
