import { CrashlabError } from '../../errors.ts'
import { boundedSafeParse, TOO_MANY_ISSUES } from '../internal/bounded-safe-parse.ts'
import { type Run, RunSchema } from '../schema/run.ts'
import { CRASHLAB_EXTENSION, RootExtensionSchema } from './crashlab-extension.ts'
import { damaged, importCrashlabCase } from './internal/import-crashlab.ts'
import { importForeignCase } from './internal/import-foreign.ts'
import { zodIssuesToValidationIssues } from './internal/issue-paths.ts'
import type { AgentCase } from './schema.ts'

/**
 * Options of `fromAgentCase`.
 *
 * @example
 * fromAgentCase(c, { useExtensions: false, source: 'shared.agentcase' })
 */
export interface FromAgentCaseOptions {
  /**
   * Read crashlab's own data under `extensions["dev.crashlab"]` when present (default `true`), which
   * gives back the exact run. `false` imports the case as any foreign one, from its events only.
   */
  useExtensions?: boolean
  /** Names the case in messages. */
  source?: string
}

/**
 * Turns an AgentCase into a crashlab run. For a case crashlab exported, the result deep-equals the run
 * that was exported (`fromAgentCase(toAgentCase(run))` is `run`). For a foreign case, model
 * request/response pairs become llm steps and tool call/result pairs tool steps, exceptions become
 * step or run errors, and the outcome maps back as docs/agentcase.md describes; events with no crashlab
 * counterpart are listed in `metadata.agentcaseImport`. The run is validated before it is returned.
 *
 * @example
 * const run = fromAgentCase(loadAgentCase('failure.agentcase'))
 * console.log(run.steps.length, run.status)
 */
export function fromAgentCase(c: AgentCase, options: FromAgentCaseOptions = {}): Run {
  const source = options.source ?? 'AgentCase input'
  const ext = options.useExtensions === false ? undefined : c.extensions[CRASHLAB_EXTENSION]
  let run: Run
  if (ext === undefined) run = importForeignCase(c)
  else {
    const root = boundedSafeParse(RootExtensionSchema, ext)
    if (root === TOO_MANY_ISSUES) throw tooManyIssues(source)
    if (!root.success) {
      throw damaged(source, zodIssuesToValidationIssues(root.error.issues), [
        'extensions',
        CRASHLAB_EXTENSION,
      ])
    }
    run = importCrashlabCase(c, root.data, source)
  }
  const checked = boundedSafeParse(RunSchema, run)
  if (checked === TOO_MANY_ISSUES) throw tooManyIssues(source)
  if (!checked.success) {
    const issues = zodIssuesToValidationIssues(checked.error.issues).map((i) => ({
      ...i,
      path: `run${i.path.slice(1)}`,
    }))
    throw new CrashlabError(
      'E_AGENTCASE_INVALID',
      `${source} does not give a valid crashlab run: ${issues[0]?.message} at ${issues[0]?.path}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''}. If the case was edited, re-export it, or import it with { useExtensions: false }.`,
      { subject: source, issues },
    )
  }
  // The checked copy, not `run`: zod's output has no key the schema does not know.
  return checked.data
}

function tooManyIssues(source: string): CrashlabError {
  return new CrashlabError(
    'E_AGENTCASE_INVALID',
    `${source} does not give a valid crashlab run, with too many problems to list. If the case was edited, re-export it, or import it with { useExtensions: false }.`,
    { subject: source },
  )
}
