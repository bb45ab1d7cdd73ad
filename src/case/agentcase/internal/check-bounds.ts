import { CrashlabError } from '../../../errors.ts'
import { describeBoundsProblem, findBoundsProblem } from '../../internal/json-bounds.ts'

/**
 * The shape bounds of an AgentCase (docs/agentcase.md, "Reading"): at most 1,000 levels of nesting
 * (`E_AGENTCASE_MALFORMED`), 100,000 entries in one object or array and 1,000,000 in all
 * (`E_AGENTCASE_TOO_LARGE`). They run before the schema, whose validator and every walker after it
 * (canonical writer, redactor, converters) are recursive.
 *
 * @example
 * checkAgentCaseBounds(JSON.parse(text), 'run.agentcase')
 */
export function checkAgentCaseBounds(value: unknown, source: string): void {
  const problem = findBoundsProblem(value)
  if (!problem) return
  throw new CrashlabError(
    problem.kind === 'depth' ? 'E_AGENTCASE_MALFORMED' : 'E_AGENTCASE_TOO_LARGE',
    `${source} ${describeBoundsProblem(problem)}. No AgentCase writer produces that; check what wrote the file.`,
    { subject: source },
  )
}
