import type { McpSideEffectOverrides } from '../engine/types.ts'

/**
 * What an MCP server says of one of its tools in its `tools/list` answer (`tools[].annotations`). The
 * spec calls them hints: a server may leave any out, and crashlab trusts only `readOnlyHint: true`.
 *
 * @example
 * const annotations: McpToolAnnotations = { readOnlyHint: true, openWorldHint: false }
 */
export interface McpToolAnnotations {
  readOnlyHint?: boolean
  destructiveHint?: boolean
  idempotentHint?: boolean
  openWorldHint?: boolean
}

/**
 * What decided whether an MCP tool has side effects: `config` (an override by server or tool),
 * `annotations` (the tool as its server listed it, with or without annotations), `unlisted` (its
 * server's `tools/list` answer was not seen, so nothing is known of it).
 */
export type McpSideEffectsSource = 'config' | 'annotations' | 'unlisted'

/**
 * Whether calling an MCP tool changes the world, and what said so: an override (per server and tool,
 * then per server) first; else side-effect free only when the server annotated the tool
 * `readOnlyHint: true` and not also `destructiveHint: true` (contradicting hints count as a side
 * effect); else a side effect, as is a tool whose annotations are not known (`annotations` undefined).
 * A side-effect tool never runs at replay and is blocked in a fork past its fork step unless the parent
 * run holds the same call. Pure: any transport (HTTP, stdio) decides with it.
 *
 * @example
 * mcpSideEffects({ server: 'orders-server', tool: 'get_order', annotations: { readOnlyHint: true } })
 * // { sideEffects: false, from: 'annotations' }
 * mcpSideEffects({ server: 'orders-server', tool: 'get_order', overrides: { 'orders-server': true } })
 * // { sideEffects: true, from: 'config' }
 */
export function mcpSideEffects(call: {
  server: string
  tool: string
  annotations?: McpToolAnnotations | undefined
  overrides?: McpSideEffectOverrides | undefined
}): { sideEffects: boolean; from: McpSideEffectsSource } {
  const override =
    call.overrides && Object.hasOwn(call.overrides, call.server) ? call.overrides[call.server] : undefined
  if (typeof override === 'boolean') return { sideEffects: override, from: 'config' }
  const byTool = override && Object.hasOwn(override, call.tool) ? override[call.tool] : undefined
  if (typeof byTool === 'boolean') return { sideEffects: byTool, from: 'config' }
  const { annotations } = call
  if (!annotations) return { sideEffects: true, from: 'unlisted' }
  const readOnly = annotations.readOnlyHint === true && annotations.destructiveHint !== true
  return { sideEffects: !readOnly, from: 'annotations' }
}

type ToolTable = Map<string, McpToolAnnotations>

/** What each scope (a Session) learned, by server name, then tool name. */
const BY_SCOPE = new WeakMap<object, Map<string, ToolTable>>()
/**
 * What any scope of this process learned, by server name: a client often lists its tools once (in
 * `beforeAll`, or another test's Session) and calls them in later tests.
 */
const ANY_SCOPE = new Map<string, ToolTable>()

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const

/**
 * Learns a server's tools from its `tools/list` result (`{ tools: [{ name, annotations }] }`): for
 * `scope` (a Session), and for the process as a fallback. A tool listed without annotations is known
 * with none; a later page of a paginated list adds to what an earlier one said.
 *
 * @example
 * learnMcpTools(session, 'orders-server', { tools: [{ name: 'get_order', annotations: { readOnlyHint: true } }] })
 */
export function learnMcpTools(scope: object, server: string, result: unknown): void {
  const tools = (result as { tools?: unknown } | null | undefined)?.tools
  if (!Array.isArray(tools)) return
  let servers = BY_SCOPE.get(scope)
  if (!servers) {
    servers = new Map()
    BY_SCOPE.set(scope, servers)
  }
  for (const table of [servers, ANY_SCOPE]) {
    const known = table.get(server) ?? new Map()
    table.set(server, known)
    for (const tool of tools) {
      const name = (tool as { name?: unknown } | null)?.name
      if (typeof name === 'string') known.set(name, hintsOf((tool as { annotations?: unknown }).annotations))
    }
  }
}

/**
 * The annotations a server listed for a tool: as `scope` (a Session) saw them, else as any scope of this
 * process last saw them for a server of that name; undefined when no listing of the tool was seen.
 *
 * @example
 * mcpSideEffects({ server, tool, annotations: mcpToolAnnotations(session, server, tool) })
 */
export function mcpToolAnnotations(
  scope: object,
  server: string,
  tool: string,
): McpToolAnnotations | undefined {
  return BY_SCOPE.get(scope)?.get(server)?.get(tool) ?? ANY_SCOPE.get(server)?.get(tool)
}

/** The boolean hints of an `annotations` object; anything else in it (`title`) is not kept. */
function hintsOf(annotations: unknown): McpToolAnnotations {
  const out: McpToolAnnotations = {}
  if (typeof annotations !== 'object' || annotations === null) return out
  for (const hint of HINTS) {
    const value = (annotations as Record<string, unknown>)[hint]
    if (typeof value === 'boolean') out[hint] = value
  }
  return out
}
