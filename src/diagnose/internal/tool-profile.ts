import { declaresSideEffects } from '../../case/mcp-steps.ts'
import type { ToolDefinition } from '../../case/schema/normalized.ts'
import type { Run } from '../../case/schema/run.ts'
import { isReadVerb, isWriteVerb, mentions, stem, stemsOf, wordsOf } from './tool-words.ts'

/**
 * The tools of a model request as the wrong-tool rule reads them: what each does (it reads, it changes
 * something, it hands off to another agent), the words that say so, and how much of a text each covers.
 */

/** What a tool is, as the rule reads it from its definition. */
export interface Profile {
  name: string
  kind: 'read' | 'write' | 'handoff' | 'unknown'
  /** The words that say what it does: its name's own words (not shared with another tool's name), its description's verb. */
  keys: string[]
  words: Set<string>
  params: Set<string>
}

const HANDOFF =
  /^(?:transfer|handoff|hand_?off|handover|route|escalate|delegate|switch)_?to_?(.+)$|^handoff_?(.+)$/i
const GENERIC_AGENT = new Set(['agent', 'assistant', 'team', 'specialist', 'bot', 'desk', 'department'])

/**
 * Each tool of a request, read from its name, description and parameters; a tool the agent's code
 * declared with side effects is a change whatever its name (an MCP tool's step declares nothing).
 *
 * @example
 * profiles(request.tools, run).find((t) => t.name === 'cancel_order')?.kind // 'write'
 */
export function profiles(tools: readonly ToolDefinition[], run: Run): Profile[] {
  const names = tools.map((t) => nameStems(t.name))
  const out = tools.map((t, i): Profile => {
    const description = t.description ?? ''
    const own = names[i]!.filter((s) => names.filter((n) => n.includes(s)).length === 1)
    const first = wordsOf(description)[0]
    const verb = first ? stem(first) : ''
    const handoff = HANDOFF.test(t.name)
    const props = t.parameters.properties
    const kind = handoff ? 'handoff' : kindOf(names[i]![0] ?? '', verb, run, t.name)
    return {
      name: t.name,
      kind,
      keys: [...own, ...(isReadVerb(verb) || isWriteVerb(verb) ? [verb] : [])],
      words: union(new Set(names[i]), stemsOf(description, { negation: true })),
      params: new Set(props && typeof props === 'object' && !Array.isArray(props) ? Object.keys(props) : []),
    }
  })
  // An agent is told apart by what its description alone says (billing, refunds), not `transfer_to`.
  const df = documentFrequency(out)
  for (const p of out) if (p.kind === 'handoff') p.keys.push(...[...p.words].filter((w) => df.get(w) === 1))
  return out
}

function nameStems(name: string): string[] {
  const match = HANDOFF.exec(name)
  const words = wordsOf(match ? (match[1] ?? match[2] ?? '') : name)
  return words.filter((w) => !(match && GENERIC_AGENT.has(w))).map(stem)
}

function kindOf(nameVerb: string, descriptionVerb: string, run: Run, name: string): Profile['kind'] {
  // What the agent's own code or an MCP server's annotations declared wins over what the name suggests.
  // An MCP tool whose listing was never seen is only assumed to have side effects: its name decides.
  if (run.steps.some((s) => s.type === 'tool' && s.name === name && s.sideEffects && declaresSideEffects(s)))
    return 'write'
  for (const verb of [nameVerb, descriptionVerb]) {
    if (isReadVerb(verb)) return 'read'
    if (isWriteVerb(verb)) return 'write'
  }
  return 'unknown'
}

export const isChange = (tools: readonly Profile[], name: string): boolean => {
  const kind = tools.find((t) => t.name === name)?.kind
  return kind === 'write' || kind === 'handoff'
}

/** Whether the text names what the tool does: one of its own words, or a verb of the same family. */
export const keyHit = (tool: Profile, text: ReadonlySet<string>): boolean =>
  tool.keys.some((k) => mentions(text, k))

/** How much of the text a tool's words cover, each word weighed by how few tools have it. */
export function coverOf(tool: Profile, text: ReadonlySet<string>, weigh: Map<string, number>): number {
  let sum = 0
  for (const w of tool.words) if (text.has(w)) sum += weigh.get(w) ?? 0
  for (const k of tool.keys) if (!text.has(k) && mentions(text, k)) sum += 0.5
  return sum
}

export function weights(tools: readonly Profile[]): Map<string, number> {
  const df = documentFrequency(tools)
  // A word every tool has tells none apart.
  return new Map([...df].map(([w, n]) => [w, n >= tools.length ? 0 : 1 / n]))
}

function documentFrequency(tools: readonly Profile[]): Map<string, number> {
  const df = new Map<string, number>()
  for (const t of tools) for (const w of t.words) df.set(w, (df.get(w) ?? 0) + 1)
  return df
}

function union(...sets: ReadonlySet<string>[]): Set<string> {
  return new Set(sets.flatMap((s) => [...s]))
}
