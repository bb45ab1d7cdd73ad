import { join, resolve } from 'node:path'
import type { Diagnosis } from '../../case/schema/run.ts'
import { pc } from '../../colors.ts'
import { diagnose, diagnoserPrompt } from '../../diagnose/index.ts'
import { renderTextReport } from '../../report/index.ts'
import { openStore } from '../../store/index.ts'
import type { RunStore } from '../../store/types.ts'
import { runSessionTasks } from '../../task-files/run-session-tasks.ts'
import { type ProvidedTasksConfig, selectFailedRuns } from '../../task-files/select-runs.ts'
import { defineCommand } from '../internal/command.ts'
import { configRedactor } from '../internal/config-redactor.ts'
import { parsePositiveInt, usageError } from '../internal/parse-options.ts'
import { reportError } from '../internal/report-error.ts'
import { proposeAndSave } from '../internal/save-fixes.ts'
import { STORE_DIR_ARG, withStore } from '../internal/store-args.ts'
import { fixAttempts } from './report.ts'

/**
 * `crashlab diagnose <id|last>`: the failing step, a label, the root cause and verbatim evidence, from one
 * LLM call (any OpenAI-compatible or Anthropic endpoint) or from rules (`--heuristic`); stored with the
 * run, and shown by `show` and the report. The diagnoser's own call is recorded in `<store>/diagnoser`.
 * `--fix` then proposes fixes (as `crashlab fix` does, with the same model options when given) and
 * prints the run's text report with its diagnosis and fixes.
 */
export const diagnoseCommand = defineCommand({
  meta: { name: 'diagnose', description: 'Diagnose a stored run: failing step, label, root cause, evidence' },
  args: {
    run: { type: 'positional', description: 'a run id, a unique prefix, or `last`', required: true },
    heuristic: { type: 'boolean', description: 'rules only, no model' },
    'show-prompt': { type: 'boolean', description: 'print the prompt the diagnoser would get, and stop' },
    model: {
      type: 'string',
      description: 'the diagnoser model (default $CRASHLAB_DIAGNOSER_MODEL)',
      valueHint: 'name',
    },
    'base-url': {
      type: 'string',
      description: 'an OpenAI-compatible or Anthropic endpoint (default $CRASHLAB_DIAGNOSER_BASE_URL)',
      valueHint: 'url',
    },
    'api-key-env': {
      type: 'string',
      description: 'the environment variable holding the key (default CRASHLAB_DIAGNOSER_API_KEY)',
      valueHint: 'VAR',
    },
    api: {
      type: 'string',
      description: 'openai or anthropic (default: from the base URL)',
      valueHint: 'api',
    },
    force: { type: 'boolean', description: 'diagnose again even when the run has a diagnosis by this model' },
    fix: {
      type: 'boolean',
      description:
        "then propose fixes (the model options are the fixer's too; default $CRASHLAB_FIXER_MODEL) and print the report",
    },
    vitest: {
      type: 'boolean',
      description:
        'diagnose, fix (with a model) and verify as Vitest tasks; <run> may then be ids (a,b), tag:X, or `session` (the last test session)',
    },
    k: {
      type: 'string',
      description: 'with --vitest: trials per arm of each verification, a fixed k (default 5)',
      valueHint: 'n',
    },
    slots: {
      type: 'string',
      description: 'with --vitest: task files per project (default 4)',
      valueHint: 'n',
    },
    verify: {
      type: 'boolean',
      default: true,
      description: 'with --vitest: verify the best fix (--no-verify: stop at the fixes)',
    },
    cwd: {
      type: 'string',
      description: 'with --vitest: the project the forks run in (default: here)',
      valueHint: 'path',
    },
    ...STORE_DIR_ARG,
    json: { type: 'boolean', description: 'print the diagnosis as JSON' },
  },
  async run({ args }) {
    try {
      if (args.api !== undefined && args.api !== 'openai' && args.api !== 'anthropic') {
        throw usageError(`--api must be openai or anthropic; got ${JSON.stringify(args.api)}`)
      }
      const keyVar = args['api-key-env'] ?? 'CRASHLAB_DIAGNOSER_API_KEY'
      if (args['api-key-env'] && process.env[keyVar] === undefined) {
        throw usageError(`--api-key-env ${keyVar}: that environment variable is not set`)
      }
      await withStore(args.dir, async (store) => {
        if (args.vitest) {
          process.exitCode = await diagnoseWithVitest(store, args)
          return
        }
        const run = store.load(args.run)
        if (args['show-prompt']) {
          const { system, user } = diagnoserPrompt(run)
          console.log(`${pc.bold('system')}\n${system}\n\n${pc.bold('user')}\n${user}`)
          return
        }
        const recordTo = args.heuristic ? undefined : await openStore({ dir: join(store.dir, 'diagnoser') })
        try {
          const diagnosis = await diagnose(run, {
            heuristic: args.heuristic === true,
            model: args.model,
            baseUrl: args['base-url'],
            apiKey: process.env[keyVar],
            api: args.api as 'openai' | 'anthropic' | undefined,
            force: args.force === true,
            recordTo,
          })
          const diagnosed = { ...run, diagnosis }
          store.save(diagnosed)
          if (!args.fix) {
            console.log(args.json ? JSON.stringify(diagnosis, null, 2) : formatDiagnosis(diagnosis, run.id))
            return
          }
          const {
            proposed,
            files,
            run: fixed,
          } = await proposeAndSave(diagnosed, store, {
            model: args.model,
            baseUrl: args['base-url'],
            apiKey: args['api-key-env'] ? process.env[keyVar] : undefined,
            api: args.api as 'openai' | 'anthropic' | undefined,
          })
          if (args.json) {
            console.log(JSON.stringify({ diagnosis, ...proposed, files }, null, 2))
            return
          }
          const redactor = await configRedactor()
          const attempts = fixAttempts(store, fixed)
          console.log(renderTextReport(fixed, { runRef: fixed.id, attempts, ...(redactor && { redactor }) }))
        } finally {
          recordTo?.close()
        }
      })
    } catch (err) {
      reportError(err)
    }
  },
})

/**
 * A diagnosis as `diagnose` and `show` print it.
 *
 * @example
 * console.log(formatDiagnosis(run.diagnosis, run.id))
 */
export function formatDiagnosis(d: Diagnosis, runId?: string): string {
  const label =
    d.label === 'NO_FAILURE'
      ? pc.green(d.label)
      : d.label === 'UNKNOWN'
        ? pc.yellow(d.label)
        : pc.red(d.label)
  const lines = [
    `${label}${d.failingStep === null ? '' : ` at step ${d.failingStep}`} ${pc.dim(`(by ${d.by})`)}`,
    `  ${d.rootCause}`,
  ]
  for (const e of d.evidence) lines.push(pc.dim(`  step ${e.step}: “${e.quote}”`))
  if (runId && d.label !== 'NO_FAILURE' && d.failingStep !== null) {
    lines.push(pc.dim(`  next: npx crashlab fork ${runId} --at ${d.failingStep} --dry-run`))
  }
  return lines.join('\n')
}

/**
 * `crashlab diagnose <ids|tag:X|session> --vitest`: the session tasks over stored runs (runSessionTasks),
 * then one line per run: its diagnosis, its fixes and their verdicts, as stored. Returns the exit code.
 */
async function diagnoseWithVitest(
  store: RunStore,
  args: { run: string; k?: string; slots?: string; verify?: boolean; cwd?: string; fix?: boolean },
): Promise<number> {
  const select = selectionOf(store, args.run)
  const cwd = args.cwd ? resolve(args.cwd) : process.cwd()
  const { code } = await runSessionTasks(select, {
    storeDir: store.dir,
    cwd,
    k: parsePositiveInt(args.k, '-k', 5),
    slots: parsePositiveInt(args.slots, '--slots', 4),
    verify: args.verify !== false,
  })
  const runs = selectFailedRuns(store, select)
  if (runs.length === 0) console.log(pc.yellow(`no failed run in ${args.run}: nothing was diagnosed`))
  for (const run of runs) {
    const d = run.diagnosis
    const fixes = run.fixes.map((f) => `${f.id} ${f.verification?.verdict ?? 'not verified'}`).join(', ')
    console.log(
      `${run.id} ${run.name}: ${d ? `${d.label}${d.failingStep === null ? '' : ` at step ${d.failingStep}`}` : 'not diagnosed'}` +
        ` · ${fixes || 'no fix'}`,
    )
  }
  return code
}

/** `<run>` with --vitest: `session` (the newest session tag), `tag:X`, or ids and prefixes (`a,b`). */
function selectionOf(store: RunStore, ref: string): ProvidedTasksConfig['select'] {
  if (ref === 'session') {
    const tag = store
      .list({})
      .flatMap((s) => s.tags.filter((t) => t.startsWith('session:')))
      .sort()
      .at(-1)
    if (!tag) {
      throw usageError(
        "no test session in the store: turn on the plugin's `tasks` option (crashlab({ tasks: true })) and run the tests, or name runs (ids or tag:X)",
      )
    }
    return { tag }
  }
  if (ref.startsWith('tag:')) {
    if (ref.length === 4) throw usageError('tag: needs a tag, as in tag:nightly')
    return { tag: ref.slice(4) }
  }
  return { ids: ref.split(',').map((r) => store.load(r.trim()).id) }
}
