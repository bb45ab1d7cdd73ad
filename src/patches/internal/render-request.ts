import type { Message, NormalizedRequest, Part } from '../../case/schema/normalized.ts'

/** A request field as lines, each with the label a hunk that starts there carries (`messages[2]`). */
export interface RenderedSection {
  name: 'params' | 'system' | 'messages' | 'tools'
  lines: string[]
  labels: string[]
}

/**
 * A request as the lines a person reads in a dry-run diff: the model and params, the system prompt, one
 * line per line of each message (prefixed by its role, never by its index, so a message put in does not
 * change every line after it) and each tool. Deterministic: params are sorted, JSON is printed as is.
 */
export function renderRequest(request: NormalizedRequest): RenderedSection[] {
  return [renderParams(request), renderSystem(request), renderMessages(request), renderTools(request)]
}

function section(name: RenderedSection['name'], rows: Array<[label: string, line: string]>): RenderedSection {
  return { name, lines: rows.map(([, line]) => line), labels: rows.map(([label]) => label) }
}

function renderParams(request: NormalizedRequest): RenderedSection {
  const { extra, ...params } = request.params
  const rows: Array<[string, string]> = [['model', `model: ${request.model}`]]
  for (const key of Object.keys(params).sort()) {
    rows.push([`params.${key}`, `${key}: ${JSON.stringify(params[key as keyof typeof params])}`])
  }
  for (const key of Object.keys(extra ?? {}).sort()) {
    rows.push([`params.extra.${key}`, `extra.${key}: ${JSON.stringify(extra![key])}`])
  }
  return section('params', rows)
}

function renderSystem(request: NormalizedRequest): RenderedSection {
  const rows = request.system.flatMap((part, i) =>
    partLines(part).map((line): [string, string] => [
      request.system.length > 1 ? `system[${i}]` : 'system',
      line,
    ]),
  )
  return section('system', rows)
}

function renderMessages(request: NormalizedRequest): RenderedSection {
  const rows = request.messages.flatMap((m, i) =>
    messageLines(m).map((line): [string, string] => [`messages[${i}] ${m.role}`, `${m.role}: ${line}`]),
  )
  return section('messages', rows)
}

function messageLines(message: Message): string[] {
  const lines = message.parts.flatMap(partLines)
  return lines.length > 0 ? lines : ['(empty)']
}

function partLines(part: Part): string[] {
  switch (part.type) {
    case 'text':
      return part.text.split('\n')
    case 'reasoning':
      return part.opaque ? ['(reasoning, opaque)'] : part.text.split('\n').map((l) => `(reasoning) ${l}`)
    case 'tool_call':
      return [`→ ${part.name}(${part.argsText ?? JSON.stringify(part.args)}) [${part.id}]`]
    case 'tool_result': {
      const head = `← ${part.name ?? 'result'} [${part.id}]${part.isError ? ' error' : ''}: `
      return part.content.split('\n').map((l, i) => (i === 0 ? head + l : `  ${l}`))
    }
    case 'media':
      return [
        `(${part.mediaType}${part.bytes === null ? '' : `, ${part.bytes} bytes`}${part.ref ? `, ${part.ref}` : ''})`,
      ]
  }
}

function renderTools(request: NormalizedRequest): RenderedSection {
  const rows = request.tools.flatMap((tool) => {
    const label = `tools.${tool.name}`
    const lines = [`tool ${tool.name}`]
    if (tool.description !== undefined) {
      lines.push(
        ...tool.description.split('\n').map((l, i) => (i === 0 ? `  description: ${l}` : `    ${l}`)),
      )
    }
    const schema = JSON.stringify(tool.parameters, null, 2).split('\n')
    lines.push(...schema.map((l, i) => (i === 0 ? `  parameters: ${l}` : `  ${l}`)))
    return lines.map((line): [string, string] => [label, line])
  })
  return section('tools', rows)
}
