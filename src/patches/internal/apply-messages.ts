import type { Message, NormalizedRequest, Part } from '../../case/schema/normalized.ts'
import type { InjectMessagePatch, MessagePatch, ToolResultPatch } from '../patch-schema.ts'

/** Each applier changes `request` in place (a copy `applyPatch` made) and returns why it could not, or null. */
type Miss = string | null

const textOf = (m: Message) => m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n')

/** The message a message patch names, as an index into `messages`, or a sentence saying why there is none. */
function pick(messages: readonly Message[], patch: MessagePatch): number | string {
  const candidates = messages.flatMap((m, i) =>
    (patch.role === undefined || m.role === patch.role) &&
    (patch.contains === undefined || textOf(m).includes(patch.contains))
      ? [i]
      : [],
  )
  const found = candidates.at(patch.index ?? 0)
  if (found !== undefined) return found
  const role = patch.role ? `${patch.role} ` : ''
  const which = patch.contains === undefined ? '' : ` containing ${JSON.stringify(patch.contains)}`
  return `no ${role}message${which} at index ${patch.index ?? 0} (there are ${candidates.length})`
}

export function applyMessage(request: NormalizedRequest, patch: MessagePatch): Miss {
  const at = pick(request.messages, patch)
  if (typeof at === 'string') return at
  if (patch.op === 'delete') {
    request.messages.splice(at, 1)
    return null
  }
  const message = request.messages[at]!
  const texts = message.parts.flatMap((p, i) => (p.type === 'text' ? [i] : []))
  if (texts.length === 0) return `message ${at} has no text to edit (a tool result? use a tool_result patch)`
  if (patch.op === 'replace') {
    const first = texts[0]!
    const parts: Part[] = message.parts.filter((p) => p.type !== 'text')
    parts.splice(first, 0, { type: 'text', text: patch.text })
    message.parts = parts
    return null
  }
  let found = false
  for (const i of texts) {
    const part = message.parts[i] as { type: 'text'; text: string }
    if (!part.text.includes(patch.find) || (found && patch.all === false)) continue
    part.text =
      patch.all === false
        ? part.text.replace(patch.find, () => patch.replace)
        : part.text.replaceAll(patch.find, () => patch.replace)
    found = true
  }
  return found ? null : `message ${at} does not contain ${JSON.stringify(patch.find)}`
}

export function applyInjectMessage(request: NormalizedRequest, patch: InjectMessagePatch): Miss {
  const length = request.messages.length
  const at = patch.at === undefined ? length : patch.at < 0 ? length + patch.at : patch.at
  if (at < 0 || at > length) return `no place ${patch.at} in a conversation of ${length} messages`
  request.messages.splice(at, 0, { role: patch.role, parts: [{ type: 'text', text: patch.text }] })
  return null
}

export function applyToolResult(request: NormalizedRequest, patch: ToolResultPatch): Miss {
  const matches = request.messages.flatMap((m) =>
    m.parts.filter(
      (p): p is Extract<Part, { type: 'tool_result' }> =>
        p.type === 'tool_result' &&
        (patch.callId === undefined || p.id === patch.callId) &&
        (patch.tool === undefined || (p.name ?? toolNameOf(request, p.id)) === patch.tool),
    ),
  )
  const nth = patch.nth === undefined ? undefined : matches.at(patch.nth)
  const chosen = patch.nth === undefined ? matches : nth ? [nth] : []
  if (chosen.length === 0) {
    const call = patch.callId === undefined ? '' : ` of call ${JSON.stringify(patch.callId)}`
    const tool = patch.tool === undefined ? '' : ` of tool ${JSON.stringify(patch.tool)}`
    const nth = patch.nth === undefined ? '' : ` number ${patch.nth}`
    return `no tool result${nth}${tool}${call} (there are ${matches.length} matching)`
  }
  for (const part of chosen) {
    part.content =
      patch.error ?? (typeof patch.result === 'string' ? patch.result : JSON.stringify(patch.result))
    part.isError = patch.error !== undefined
  }
  return null
}

/** The tool a call id belongs to, for results whose wire does not repeat the name. */
function toolNameOf(request: NormalizedRequest, id: string): string | undefined {
  for (const m of request.messages) {
    for (const p of m.parts) if (p.type === 'tool_call' && p.id === id) return p.name
  }
  return undefined
}
