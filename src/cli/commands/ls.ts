import { defineCommand } from 'citty'
import pc from 'picocolors'
import { SeveritySchema } from '../../case/schema/step.ts'
import { formatUsd } from '../../cost/index.ts'
import type { StoredRunSummary } from '../../store/index.ts'
import { parsePositiveInt, parseSeverity } from '../internal/parse-options.ts'
import { reportError } from '../internal/report-error.ts'
import { findingsText, outcomeText } from '../internal/run-text.ts'
import { STORE_DIR_ARG, withStore } from '../internal/store-args.ts'
import { formatTable } from '../internal/table.ts'

/** `crashlab ls`: the stored runs, newest first, with filters. */
export const ls = defineCommand({
  meta: { name: 'ls', description: 'List the stored runs, newest first' },
  args: {
    ...STORE_DIR_ARG,
    flagged: { type: 'boolean', description: 'only runs with a finding ≥ warn, a failed check, or an error' },
    'min-severity': {
      type: 'string',
      description: `only runs with a finding at or above: ${SeveritySchema.options.join(', ')}`,
      valueHint: 'severity',
    },
    tag: { type: 'string', description: 'only runs with this tag', valueHint: 'tag' },
    limit: { type: 'string', description: 'at most this many runs (default 50)', valueHint: 'n' },
    json: { type: 'boolean', description: 'print the runs as JSON' },
  },
  async run({ args }) {
    try {
      const limit = parsePositiveInt(args.limit, '--limit', 50)
      const filter = {
        flagged: args.flagged === true ? true : undefined,
        minSeverity: parseSeverity(args['min-severity'], '--min-severity'),
        tag: args.tag,
        limit,
      }
      await withStore(args.dir, (store) => {
        const runs = store.list(filter)
        if (args.json) {
          console.log(JSON.stringify(runs, null, 2))
          return
        }
        if (runs.length === 0) {
          console.log(
            `No runs in ${store.dir}${args.flagged || args.tag || args['min-severity'] ? ' match the filters' : ''}. Record one with record() or capture(), or \`crashlab import <file>\`.`,
          )
          return
        }
        console.log(
          formatTable(
            ['id', 'name', 'status', 'outcome', 'steps', 'tokens', 'cost', 'findings', 'tags'],
            runs.map(row),
            { right: [4, 5, 6] },
          ),
        )
      })
    } catch (err) {
      reportError(err)
    }
  },
})

function row(run: StoredRunSummary): string[] {
  return [
    pc.dim(run.id),
    run.name,
    run.status === 'ok' ? run.status : pc.red(run.status),
    outcomeText(run.outcome),
    String(run.steps),
    String(run.tokens),
    run.costUsd === null ? '—' : formatUsd(run.costUsd),
    findingsText(run.findings) || '—',
    run.tags.join(','),
  ]
}
