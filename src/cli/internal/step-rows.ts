import type { Run } from '../../case/schema/run.ts'
import type { Step } from '../../case/schema/step.ts'
import { cell } from './table.ts'

/**
 * One row per step for `crashlab show`: index, kind, name, what went in (args or the newest message),
 * what came out (result, answer or tool calls), and the error.
 *
 * @example
 * stepRows(run) // [['0', 'llm', 'gpt-4o-mini', 'user: Refund my order A17', '→ get_order({"order_id":"A17"})', '']]
 */
export function stepRows(run: Run, width = 48): string[][] {
  return run.steps.map((step) => [
    String(step.index),
    step.type,
    nameOf(step),
    cell(inputOf(step), width),
    cell(outputOf(step), width),
    step.error ? cell(`${step.error.name}: ${step.error.message}`, width) : '',
  ])
}

function nameOf(step: Step): string {
  if (step.type === 'tool') {
    const name = step.mcp ? `${step.name} (mcp: ${step.mcp.server})` : step.name
    return step.blocked ? `${name} (blocked)` : name
  }
  if (step.type === 'http') return `${step.label} ${step.request.method}`
  return step.response?.normalized?.model ?? step.request.normalized?.model ?? step.provider
}

function inputOf(step: Step): string {
  if (step.type === 'tool') return JSON.stringify(step.args)
  if (step.type === 'http') return step.request.url
  const last = step.request.normalized?.messages.at(-1)
  if (!last) return ''
  const text = last.parts
    .map((p) =>
      p.type === 'text'
        ? p.text
        : p.type === 'tool_result'
          ? p.content
          : p.type === 'tool_call'
            ? `${p.name}(…)`
            : '',
    )
    .join(' ')
  return `${last.role}: ${text}`
}

function outputOf(step: Step): string {
  if (step.type === 'tool') return step.result === undefined ? '' : JSON.stringify(step.result)
  if (step.type === 'http') return step.response ? String(step.response.status) : ''
  const response = step.response
  if (!response) return ''
  if (response.wire.status >= 400) return `HTTP ${response.wire.status}`
  const normalized = response.normalized
  if (!normalized) return ''
  const calls = normalized.toolCalls.map((c) => `→ ${c.name}(${JSON.stringify(c.args)})`)
  const text = normalized.parts.map((p) => (p.type === 'text' ? p.text : '')).join('')
  return [text, ...calls].filter(Boolean).join(' ')
}
