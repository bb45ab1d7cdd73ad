import type { JsonValue } from './schema/json.ts'
import type { HttpStep, McpCall, Step, ToolStep } from './schema/step.ts'

/**
 * An MCP server's tool call (`tools/call`): a `tool` step with `mcp`. Everything that reads tool steps
 * reads it as a tool step; `mcp.server` says which server answered.
 *
 * @example
 * run.steps.filter(isMcpToolStep).map((s) => `${s.name} (mcp: ${s.mcp.server})`) // ['issue_refund (mcp: orders-server)']
 */
export function isMcpToolStep(step: Step): step is ToolStep & { mcp: McpCall } {
  return step.type === 'tool' && step.mcp !== undefined
}

/** An `http` step of an MCP message: its label is `mcp:<method>`, `mcp:response` or `mcp:batch`. */
export type McpHttpStep = HttpStep & { label: `mcp:${string}` }

/**
 * An MCP message that is not a tool call: the handshake (`mcp:initialize`,
 * `mcp:notifications/initialized`), `mcp:tools/list`, `mcp:resources/read`, a batch, a client's
 * response. It is the protocol's own traffic: not a model call, not a tool call, not unknown network,
 * and not a step of the agent's work for a step budget.
 *
 * @example
 * run.steps.filter((s) => !isMcpHttpStep(s)).length // the steps without the MCP plumbing
 */
export function isMcpHttpStep(step: Step): step is McpHttpStep {
  return step.type === 'http' && step.label.startsWith('mcp:')
}

/**
 * What an MCP tool answered, read as a wrapped tool's return value: its `structuredContent` when it
 * has one, else the text of its content when every part is text (joined by newlines), else the result
 * as it is (images, resources). What the detectors and the diagnosis read of an MCP tool's result.
 *
 * @example
 * mcpResultValue({ content: [{ type: 'text', text: '{"total":49}' }] }) // '{"total":49}'
 * mcpResultValue({ content: [], structuredContent: { total: 49 } }) // { total: 49 }
 */
export function mcpResultValue(result: JsonValue | undefined): JsonValue | undefined {
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return result
  if (result.structuredContent !== undefined) return result.structuredContent
  const content = result.content
  if (!Array.isArray(content) || content.length === 0) return result
  const texts: string[] = []
  for (const part of content) {
    if (typeof part !== 'object' || part === null || Array.isArray(part) || part.type !== 'text')
      return result
    if (typeof part.text !== 'string') return result
    texts.push(part.text)
  }
  return texts.join('\n')
}

/**
 * Whether a tool step's `sideEffects` says what the tool declared: always for a wrapped tool (its
 * `tool()` options), and for an MCP tool when its server's annotations or the config decided it
 * (`mcp.sideEffectsFrom`); an MCP tool whose listing was never seen is only assumed to have side effects.
 *
 * @example
 * declaresSideEffects(step) && step.sideEffects // the tool is known to change the world
 */
export function declaresSideEffects(step: ToolStep): boolean {
  const from = step.mcp?.sideEffectsFrom
  return step.mcp === undefined || from === 'annotations' || from === 'config'
}
