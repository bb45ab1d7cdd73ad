import type { Run } from '../../case/schema/run.ts'
import { diffRuns } from '../../diff/run-diff.ts'
import { formatRunDiff } from '../../diff/run-diff-format.ts'
import { CrashlabError, isCrashlabError } from '../../errors.ts'
import type { RunStore } from '../../store/index.ts'
import { defineCommand } from '../internal/command.ts'
import { usageError } from '../internal/parse-options.ts'
import { reportError } from '../internal/report-error.ts'
import { STORE_DIR_ARG, withStore } from '../internal/store-args.ts'

/**
 * `crashlab diff <A> [B]`: two stored runs side by side, step by step. B defaults to A's parent (the
 * run A was forked from or replays), which is the question after a fork or a replay: what changed.
 * The parent is then the baseline and is printed as A, so that the report always reads from the older
 * run to the newer one ("expected" is the parent's value, "got" the fork's), as `git show` reads.
 * A diff is a report, so it exits 0 whatever it finds; only an error (an unknown run) exits 1.
 */
export const diff = defineCommand({
  meta: {
    name: 'diff',
    description: "Compare two stored runs: relation, outcome, checks, usage, step alignment (B: A's parent)",
  },
  args: {
    a: { type: 'positional', description: 'run A: an id, a unique prefix of one, or `last`', required: true },
    b: {
      type: 'positional',
      description:
        "run B (default: A's parent, the run A was forked from or replays; the parent is then the baseline, printed first)",
      required: false,
    },
    ...STORE_DIR_ARG,
    json: { type: 'boolean', description: 'print the diff as JSON' },
  },
  async run({ args }) {
    try {
      await withStore(args.dir, (store) => {
        const a = store.load(args.a)
        const [baseline, candidate] = args.b ? [a, store.load(args.b)] : [loadParent(store, a), a]
        const d = diffRuns(baseline, candidate)
        console.log(args.json ? JSON.stringify(d, null, 2) : formatRunDiff(d))
      })
    } catch (err) {
      reportError(err)
    }
  },
})

/** The run `run` derives from; with no B given, the parent is the baseline (A of the report). */
function loadParent(store: RunStore, run: Run): Run {
  const parent = run.links.forkedFrom ?? run.links.replayOf
  if (!parent) {
    throw usageError(
      `run ${run.id} (${run.name}) is not a fork or a replay, so it has no parent to compare with: ` +
        `name the second run, as in \`crashlab diff ${run.id.slice(0, 10)} <other run>\` (\`crashlab ls\` lists them)`,
    )
  }
  try {
    return store.load(parent)
  } catch (err) {
    if (!isCrashlabError(err, 'E_RUN_NOT_FOUND')) throw err
    throw new CrashlabError(
      'E_RUN_NOT_FOUND',
      `run ${run.id} is a ${run.links.forkedFrom ? 'fork' : 'replay'} of ${parent}, which is not in ${store.dir}: ` +
        `import it (\`crashlab import <file>\`) or name the run to compare with, as in \`crashlab diff ${run.id.slice(0, 10)} <other run>\``,
      { cause: err },
    )
  }
}
