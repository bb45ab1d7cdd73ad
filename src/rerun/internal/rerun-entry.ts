import type { EntryPoint, Run } from '../../case/schema/run.ts'
import { CrashlabError } from '../../errors.ts'

type ModuleEntry = Extract<EntryPoint, { kind: 'module' }>

/**
 * The key of `run.metadata` under which an `agentCase` run records the module and export its agent
 * function was imported from (the fixtures write it; a `test` entry point cannot hold more fields).
 */
const AGENT_ORIGIN_KEY = 'agentOrigin'

/**
 * The module entry point an exported test runs the agent through: `entry` (`module#export`, given by
 * the caller) first, then the run's own `module` entry point, then the origin an `agentCase` run
 * recorded for its agent function. Throws `E_EXPORT_NO_AGENT` when there is none, naming the test that
 * already runs the agent, if any: a test that only grades the recording again would guard nothing.
 */
export function rerunEntry(run: Run, entry: string | undefined): ModuleEntry {
  if (entry !== undefined) return parseEntry(entry)
  if (run.entryPoint?.kind === 'module') return run.entryPoint
  const origin = originOf(run)
  if (origin) return { kind: 'module', ...origin }
  throw notRerunnable(run)
}

/** `./src/agent.ts#runAgent` as a module entry point: both parts are required (no default export guessed). */
function parseEntry(text: string): ModuleEntry {
  const at = text.lastIndexOf('#')
  const module = at === -1 ? '' : text.slice(0, at).trim()
  const name = at === -1 ? '' : text.slice(at + 1).trim()
  if (!module || !name) {
    throw new CrashlabError(
      'E_EXPORT_NO_AGENT',
      `--entry ${JSON.stringify(text)}: name the agent as <module>#<export>, as in ` +
        '`--entry ./src/agent.ts#runAgent` (the module relative to the folder the tests run in).',
      { subject: text },
    )
  }
  return { kind: 'module', module, export: name }
}

function originOf(run: Run): { module: string; export: string } | undefined {
  const origin = run.metadata[AGENT_ORIGIN_KEY]
  if (typeof origin !== 'object' || origin === null || Array.isArray(origin)) return undefined
  const { module, export: name } = origin as Record<string, unknown>
  return typeof module === 'string' && typeof name === 'string' && module && name
    ? { module, export: name }
    : undefined
}

function notRerunnable(run: Run): CrashlabError {
  const head = `run ${run.id} (${run.name}) cannot be exported as a test that runs its agent again`
  const how =
    'Name the agent function with `--entry <module>#<export>` (as in `--entry ./src/agent.ts#runAgent`), ' +
    "or record the run with `record(name, fn, { input, entryPoint: { kind: 'module', module, export } })`."
  const entry = run.entryPoint
  if (entry?.kind === 'test') {
    return new CrashlabError(
      'E_EXPORT_NO_AGENT',
      `${head}: it ran in the test "${entry.test}" (${entry.file}), whose agent function was not imported ` +
        'from a module (an inline function), so nothing records which function to call. That test already ' +
        `guards this case: \`npx vitest run ${entry.file} -t ${shellQuote(entry.test)}\` runs the agent ` +
        `against its cassette (\`npx crashlab replay ${run.id}\` replays this run through it). ${how}`,
      { subject: run.id },
    )
  }
  return new CrashlabError(
    'E_EXPORT_NO_AGENT',
    `${head}: it has no entry point (it was imported, or recorded without one), so no test runs its agent ` +
      `yet and an exported test could only grade the recording again, which guards nothing. ${how}`,
    { subject: run.id },
  )
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`
}
