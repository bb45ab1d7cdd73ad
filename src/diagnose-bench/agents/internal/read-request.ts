import type { JsonValue } from '../../../case/schema/json.ts'
import type { NormalizedRequest } from '../../../case/schema/normalized.ts'

/** The system prompt's text. */
export function systemText(request: NormalizedRequest): string {
  return request.system.map((p) => (p.type === 'text' ? p.text : '')).join('\n')
}

/** The user's first message. */
export function userText(request: NormalizedRequest): string {
  const user = request.messages.find((m) => m.role === 'user')
  return user?.parts.map((p) => (p.type === 'text' ? p.text : '')).join(' ') ?? ''
}

/**
 * The results of the tool calls that answer the model's last turn, each with the name of its tool
 * (found from the call it answers when the wire does not carry it) and its content parsed when JSON.
 */
export function lastToolResults(
  request: NormalizedRequest,
): Array<{ name: string; content: string; data: unknown }> {
  const out: Array<{ name: string; content: string; data: unknown }> = []
  const names = new Map<string, string>()
  for (const m of request.messages)
    for (const p of m.parts) if (p.type === 'tool_call') names.set(p.id, p.name)
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const m = request.messages[i]!
    if (m.role !== 'tool') break
    for (const p of m.parts) {
      if (p.type !== 'tool_result') continue
      out.unshift({ name: p.name ?? names.get(p.id) ?? '', content: p.content, data: parse(p.content) })
    }
  }
  return out
}

/** Every tool called so far in the conversation, in order. */
export function toolsCalled(request: NormalizedRequest): string[] {
  return request.messages.flatMap((m) => m.parts.flatMap((p) => (p.type === 'tool_call' ? [p.name] : [])))
}

/** A backend's failure as the model sees it: an `{ error }` result or a gateway's HTML page. */
export function failureOf(content: string, data: unknown): string | undefined {
  if (/<html|502 Bad Gateway/i.test(content)) return 'the service answered a 502 Bad Gateway page'
  if (data && typeof data === 'object' && 'error' in data) return String((data as { error: unknown }).error)
  return undefined
}

function parse(content: string): unknown {
  try {
    return JSON.parse(content) as JsonValue
  } catch {
    return content
  }
}

/** The gateway's page a tool's backend answers when it is down (nginx's, as the scripted provider sends it). */
export const GATEWAY_502_HTML =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n'
