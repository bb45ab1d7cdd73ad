import { mcpResultValue } from '../../case/mcp-steps.ts'
import type { Run } from '../../case/schema/run.ts'
import type { Step } from '../../case/schema/step.ts'
import { isErrorResult } from '../../checks/failed-tool-call.ts'

type ToolStep = Extract<Step, { type: 'tool' }>
type LlmStep = Extract<Step, { type: 'llm' }>

/** A failed tool call and what the model did with it. */
export interface ToolFailure {
  /** The failed tool step (the first of a chain of retries of the same tool that all failed). */
  step: number
  tool: string
  /** How it failed: it threw, it returned an error, it answered a page, or the agent sent the model an error. */
  how: 'threw' | 'error' | 'page' | 'agent'
  /** `ignored`: the model claimed success or went on with other tools; `reported`: it told the user. */
  handling: 'ignored' | 'reported'
  /** A verbatim piece of a step's text (`stepText`) that shows the failure: the tool step's, or the next request's. */
  evidence: { step: number; quote: string }
  /** The model call that answered the failure, and a verbatim piece of what it said or called. */
  reply: { step: number; quote: string }
}

// A page is recognizable by its first bytes; `"` because a JSON-encoded string result starts with one.
const PAGE = /^\s*"?\s*(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)?<(?:!doctype\s+html|html|head|body)\b/i
const STATUS_PAGE =
  /^\s*"?(?:HTTP\/\d(?:\.\d)?\s+)?[45]\d\d\s+(?:Bad Gateway|Service (?:Temporarily )?Unavailable|Gateway Time-?out|Internal Server Error|Too Many Requests)\b/i
// What an agent sends the model when its tool threw or its JSON.parse did: an error, in words.
const AGENT_ERROR =
  /^\s*(?:error\b|ERROR\b|exception\b)|Unexpected token|is not valid JSON|JSON\.parse|SyntaxError|Unexpected end of JSON/i
// How a model tells the user that something did not work.
const HONEST =
  /\b(?:could not|couldn't|cannot|can't|can not|unable|not able|failed|failing|failure|error|unavailable|not available|try again|later|sorry|unfortunately|problem|outage|is down|was not|wasn't|did not|didn't|not been|no (?:refund|booking|change|changes) (?:was|were|has been))\b/i

/**
 * Rules 2 and 3 of the heuristic: the first tool call that failed and was not recovered from, and what
 * the model did next. A tool call failed when it threw, returned an error (`isErrorResult`), answered an
 * HTML page or an HTTP error page as its result (status 200 or not), or when the next model request
 * carries its result as an error (the API's error flag, or text such as `Error: …` or a JSON parse error:
 * the agent's own parsing threw). The model's answer is the first model call after it that got a
 * response: another call of the same tool is a retry (recovered if a later call of that tool worked,
 * otherwise the chain's first failure stays the culprit); a call of another tool, or text that does not
 * say anything failed, is `ignored`; text that says it could not do it is `reported`. Null when no tool
 * call failed, every failure was recovered from, or no model call came after the failure (the agent
 * stopped on it).
 *
 * @example
 * findToolFailure(run)
 * // { step: 1, tool: 'get_order', how: 'page', handling: 'ignored',
 * //   evidence: { step: 1, quote: '502 Bad Gateway' }, reply: { step: 2, quote: 'assistant: All done.' } }
 */
export function findToolFailure(run: Run): ToolFailure | null {
  let chain: { step: ToolStep; how: ToolFailure['how']; evidence: ToolFailure['evidence'] } | null = null
  for (const step of run.steps) {
    if (step.type !== 'tool' || step.blocked) continue
    const next = nextAnswer(run, step.index)
    const failure = howFailed(step, next)
    if (!failure) {
      // A retry that worked: the earlier failure of this tool was recovered from.
      if (chain?.step.name === step.name) chain = null
      continue
    }
    if (!(chain && chain.step.name === step.name)) chain = { step, ...failure }
    if (!next?.response?.normalized) return null
    const response = next.response.normalized
    if (response.toolCalls.some((c) => c.name === step.name)) continue
    const text = response.parts
      .filter((p) => p.type === 'text')
      .map((p) => p.text)
      .join('\n')
      .trim()
    const other = response.toolCalls[0]
    const reported = !other && HONEST.test(text)
    const quote = other
      ? `call ${other.name} ${JSON.stringify(other.args)}`
      : `assistant: ${text.slice(0, 120)}`
    return {
      step: chain.step.index,
      tool: chain.step.name,
      how: chain.how,
      handling: reported ? 'reported' : 'ignored',
      evidence: chain.evidence,
      reply: { step: next.index, quote: text.length === 0 && !other ? 'finish:' : quote },
    }
  }
  return null
}

/** The first model call after `from` that got an answer (a failed provider call is skipped). */
function nextAnswer(run: Run, from: number): LlmStep | undefined {
  for (const step of run.steps.slice(from + 1))
    if (step.type === 'llm' && step.response?.normalized) return step
  return undefined
}

function howFailed(
  step: ToolStep,
  next: LlmStep | undefined,
): { how: ToolFailure['how']; evidence: ToolFailure['evidence'] } | null {
  const at = (quote: string) => ({ step: step.index, quote })
  if (step.error) return { how: 'threw', evidence: at(`error ${step.error.name}: ${step.error.message}`) }
  const result = step.result
  // An MCP tool's page is the text of its content, as a wrapped tool's is its string result.
  const text = step.mcp ? mcpResultValue(result) : result
  if (typeof text === 'string' && (PAGE.test(text) || STATUS_PAGE.test(text)))
    return { how: 'page', evidence: at(pageQuote(text)) }
  if (isErrorResult(result))
    return { how: 'error', evidence: at(`→ ${JSON.stringify(result)}`.slice(0, 120)) }
  // What the agent sent the model for this call: a page, or an error its own code raised.
  const sent = next?.request.normalized?.messages
    .flatMap((m) => m.parts)
    .find((p) => p.type === 'tool_result' && (step.callId ? p.id === step.callId : p.name === step.name))
  if (sent?.type !== 'tool_result' || !next) return null
  const content = sent.content
  if (!(PAGE.test(content) || STATUS_PAGE.test(content) || sent.isError || AGENT_ERROR.test(content)))
    return null
  const line = content.trim().split(/\r?\n/)[0]?.slice(0, 80) ?? ''
  return { how: 'agent', evidence: { step: next.index, quote: line } }
}

/** The page's title or its first status line, as JSON-encoded in the tool step's text. */
function pageQuote(page: string): string {
  const title = /<title>([^<]{1,80})<\/title>/i.exec(page)?.[1]
  if (title) return title
  const line = page.trim().split(/\r?\n/)[0] ?? ''
  return JSON.stringify(line.slice(0, 80)).slice(1, -1)
}
