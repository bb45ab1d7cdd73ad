import { canonicalStringify } from '../../case/canonical-json.ts'
import type { JsonValue } from '../../case/schema/json.ts'
import type { ToolStep } from '../../case/schema/step.ts'
import { redactDocument } from '../../redact/redact-document.ts'
import { DivergenceError } from '../divergence-error.ts'
import type { Session } from '../session.ts'
import { diffRequests } from './request-diff.ts'

/**
 * The recorded tool step that answers a live call: the first unused one with the same name and equal
 * arguments (compared redacted, as the cassette holds them), so parallel tool calls find their own.
 */
export function takeRecordedTool(session: Session, name: string, args: JsonValue): ToolStep | undefined {
  const step = peekRecordedTool(session, name, args)
  if (step) session.consume(step.index)
  return step
}

/** The recorded tool step `takeRecordedTool` would serve a live call, without using it. */
export function peekRecordedTool(session: Session, name: string, args: JsonValue): ToolStep | undefined {
  const key = argsKey(session, args)
  for (const step of session.unconsumed()) {
    // An MCP server's tool call is answered from the wire (src/mcp), never by a `tool()` wrapper.
    if (step.type !== 'tool' || step.name !== name || step.mcp) continue
    if (argsKey(session, step.args) === key) return step
  }
  return undefined
}

function argsKey(session: Session, args: JsonValue): string {
  return canonicalStringify(redactDocument(args, { redactor: session.redactor }).value)
}

/** The divergence for a tool call that matched nothing, diffed against the nearest recorded tool call. */
export function toolDivergence(session: Session, name: string, args: JsonValue): DivergenceError {
  const tools = (session.recorded?.steps ?? []).filter((s): s is ToolStep => s.type === 'tool' && !s.mcp)
  const unused = new Set(session.unconsumed().map((s) => s.index))
  // The nearest is searched among the unused calls of the same tool, then any unused call (a different
  // tool at this point), then every recorded call (the agent calls this tool once more than recorded).
  const pools = [
    tools.filter((s) => unused.has(s.index) && s.name === name),
    tools.filter((s) => unused.has(s.index)),
    tools,
  ]
  const pool = pools.find((p) => p.length > 0) ?? []
  const live = redactDocument({ name, args }, { redactor: session.redactor }).value
  let nearest: { step: ToolStep; differences: ReturnType<typeof diffRequests> } | undefined
  for (const step of pool) {
    const recorded = redactDocument(
      { name: step.name, args: step.args },
      { redactor: session.redactor },
    ).value
    const differences = diffRequests(recorded, live)
    if (!nearest || differences.length < nearest.differences.length) nearest = { step, differences }
  }
  return new DivergenceError({
    where: session.where,
    stepIndex: session.run.steps.length,
    call: `tool ${name}`,
    nearestStep: nearest?.step.index ?? null,
    nearestUsed: nearest ? !unused.has(nearest.step.index) : false,
    differences: nearest?.differences ?? [],
    cassettePath: session.cassettePath,
  })
}
