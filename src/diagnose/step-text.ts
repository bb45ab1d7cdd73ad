import type { Step } from '../case/schema/step.ts'

/**
 * What a step says, as one text: the text that evidence quotes are taken from and checked against.
 * An LLM step: its newest request messages and its response (text and tool calls as JSON); a tool step:
 * its arguments, result and error as JSON; an HTTP step: method, URL, status and bodies. Deterministic,
 * so a quote found once is found again.
 *
 * @example
 * stepText(run.steps[3]) // 'issue_refund {"amount":490,"order_id":"A17"} → {"ok":true,"refund_id":"rf_1"}'
 */
export function stepText(step: Step): string {
  if (step.type === 'tool') {
    const out = [`${step.name} ${JSON.stringify(step.args)}`]
    if (step.result !== undefined) out.push(`→ ${JSON.stringify(step.result)}`)
    if (step.error) out.push(`error ${step.error.name}: ${step.error.message}`)
    if (step.blocked) out.push('(blocked)')
    return out.join(' ')
  }
  if (step.type === 'http') {
    const out = [`${step.request.method} ${step.request.url}`]
    if (step.request.bodyText) out.push(step.request.bodyText)
    else if (step.request.body !== null) out.push(JSON.stringify(step.request.body))
    if (step.response) {
      out.push(`→ ${step.response.status}`)
      if (step.response.bodyText) out.push(step.response.bodyText)
      else if (step.response.body !== null) out.push(JSON.stringify(step.response.body))
    }
    if (step.error) out.push(`error ${step.error.name}: ${step.error.message}`)
    return out.join(' ')
  }
  const out: string[] = []
  const request = step.request.normalized
  if (request) {
    const messages = request.messages
    let from = messages.length - 1
    while (from > 0 && messages[from]?.role !== 'assistant') from--
    for (const m of messages.slice(Math.max(0, from + 1))) {
      for (const p of m.parts) {
        if (p.type === 'text') out.push(`${m.role}: ${p.text}`)
        else if (p.type === 'tool_result') out.push(`${m.role} (${p.name ?? 'tool'} result): ${p.content}`)
      }
    }
  }
  const response = step.response
  if (response) {
    if (response.wire.status >= 400) {
      out.push(`→ HTTP ${response.wire.status}`)
      if (response.wire.bodyText) out.push(response.wire.bodyText)
      else if (response.wire.body !== null) out.push(JSON.stringify(response.wire.body))
    }
    const normalized = response.normalized
    if (normalized) {
      for (const p of normalized.parts) if (p.type === 'text') out.push(`assistant: ${p.text}`)
      for (const c of normalized.toolCalls) out.push(`call ${c.name} ${JSON.stringify(c.args)}`)
      if (normalized.finishReason) out.push(`finish: ${normalized.finishReason}`)
    }
  }
  if (step.error) out.push(`error ${step.error.name}: ${step.error.message}`)
  return out.join('\n')
}
