import type { Run } from '../case/schema/run.ts'
import type { RunStore } from '../store/types.ts'

/**
 * What the session task files read with `inject('crashlabTasks')`: which runs, where, and how hard to
 * verify. The plugin's `tasks` option provides it to the `crashlab:diagnose` and `crashlab:verify`
 * projects it adds; `crashlab diagnose --vitest` to the project it runs.
 *
 * @example
 * const tasks: ProvidedTasksConfig = { storeDir: '/repo/.crashlab', cwd: '/repo', select: { tag: 'session:01J…' }, k: 3, slots: 4 }
 */
export interface ProvidedTasksConfig {
  storeDir: string
  /** The project: forks resolve entry points and run Vitest there. */
  cwd: string
  /** The runs to work on: those with this tag, or these ids; only failed ones are taken. */
  select: { tag: string } | { ids: string[] }
  /** Trials per arm of each verification. */
  k: number
  /** How many task files share the work (run i goes to file i mod slots; trials are dealt by `slotOf`). */
  slots: number
  /** Propose fixes when a model is configured (`CRASHLAB_FIXER_MODEL` or `CRASHLAB_DIAGNOSER_MODEL`). Default true. */
  fix?: boolean
}

/**
 * The failed runs a session task file works on, oldest first: the selected runs whose oracles failed or
 * that ended in an error, never a fork or a replay.
 *
 * @example
 * const runs = selectFailedRuns(store, { tag: 'session:01J…' })
 */
export function selectFailedRuns(store: RunStore, select: ProvidedTasksConfig['select']): Run[] {
  const summaries =
    'tag' in select ? store.list({ tag: select.tag }) : select.ids.map((id) => store.get(store.load(id).id))
  return summaries
    .filter((s) => !s.forkedFrom && !s.replayOf && (s.outcome === 'fail' || s.status === 'error'))
    .sort((a, b) => a.id.localeCompare(b.id))
    .map((s) => store.load(s.id))
}
