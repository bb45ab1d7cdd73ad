import type { JsonValue } from '../../case/schema/json.ts'
import type { StepError, WireResponse } from '../../case/schema/step.ts'
import type { Session } from '../../engine/session.ts'
import { CrashlabError } from '../../errors.ts'
import type { McpMessage } from '../mcp-message.ts'
import {
  learnMcpTools,
  type McpSideEffectsSource,
  mcpSideEffects,
  mcpToolAnnotations,
} from '../tool-annotations.ts'
import { rpcAnswer } from './mcp-wire.ts'

/** Learns the tools of `server` from each `tools/list` request of an exchange and its answer. */
export function learnToolLists(
  session: Session,
  server: string,
  messages: readonly McpMessage[],
  response: WireResponse,
): void {
  for (const m of messages) {
    if (m.kind === 'request' && m.method === 'tools/list')
      learnMcpTools(session, server, rpcAnswer(response, m.id)?.result)
  }
}

/**
 * Whether a call of `tool` on `server` has side effects for this Session: its config, then what was
 * listed, then, for a replay or a fork whose listing was seen by no Session of this process, what the
 * recorded run's annotations said of the tool when it was recorded.
 */
export function toolSideEffects(
  session: Session,
  server: string,
  tool: string,
): { sideEffects: boolean; from: McpSideEffectsSource } {
  const decided = mcpSideEffects({
    server,
    tool,
    annotations: mcpToolAnnotations(session, server, tool),
    overrides: session.mcp?.sideEffects,
  })
  if (decided.from !== 'unlisted') return decided
  const recorded = session.recorded?.steps.find(
    (s) =>
      s.type === 'tool' &&
      s.name === tool &&
      s.mcp?.server === server &&
      s.mcp.sideEffectsFrom === 'annotations',
  )
  return recorded?.type === 'tool' ? { sideEffects: recorded.sideEffects, from: 'annotations' } : decided
}

/**
 * A fork past its fork step never sends a call of a side-effect tool that its parent run does not hold
 * (the caller served the ones it holds): this is the answer in its place, or undefined when the exchange
 * may go live. A `tools/call` gets an `isError` result that names `E_FORK_BLOCKED` (MCP's way to tell
 * the model a tool failed: the client returns it, and the agent goes on as after a failed tool); each
 * request of a batch that holds such a call gets a JSON-RPC error. `sessionId` is the request's
 * `Mcp-Session-Id`, echoed as a server does.
 */
export function forkBlocked(
  session: Session,
  server: string,
  messages: readonly McpMessage[],
  sessionId: string | null,
): { response: WireResponse; answer: Response; error: StepError } | undefined {
  if (session.forkAt === undefined || session.mode !== 'record') return undefined
  const tool = messages
    .map((m) => (m.kind === 'request' && m.method === 'tools/call' ? (m.params as { name?: unknown }) : null))
    .map((params) => (typeof params?.name === 'string' ? params.name : undefined))
    .find((name) => name !== undefined && toolSideEffects(session, server, name).sideEffects)
  if (tool === undefined) return undefined
  const blocked = new CrashlabError(
    'E_FORK_BLOCKED',
    `${session.where}: MCP tool "${tool}" of server "${server}" has side effects and was called with arguments ` +
      'its parent run never used, so the fork did not send the call: a fork never runs a side-effect tool ' +
      'live. A tool its server annotates `readOnlyHint: true`, or that the config file marks ' +
      `\`mcp: { sideEffects: { '${server}': { '${tool}': false } } }\`, goes live.`,
    { subject: tool },
  )
  // The code up front: it is what the model (and whoever reads the transcript) should see first.
  const text = blocked.message.replace('[crashlab] ', `[crashlab] ${blocked.code}: `)
  const answers = messages.flatMap((m): JsonValue[] => {
    if (m.kind !== 'request') return []
    if (messages.length === 1)
      return [{ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text }], isError: true } }]
    return [{ jsonrpc: '2.0', id: m.id, error: { code: -32000, message: text } }]
  })
  const body = messages.length === 1 ? (answers[0] ?? null) : answers
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (sessionId !== null) headers['mcp-session-id'] = sessionId
  return {
    response: { status: 200, headers, body },
    answer: new Response(JSON.stringify(body), { status: 200, headers }),
    error: { name: blocked.name, message: blocked.message, code: blocked.code },
  }
}
