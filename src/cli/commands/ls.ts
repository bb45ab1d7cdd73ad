import { SEVERITIES } from '../../case/schema/severities.ts'
import { pc } from '../../colors.ts'
import { formatUsd } from '../../cost/format-usd.ts'
import type { StoredRunSummary } from '../../store/index.ts'
import { defineCommand } from '../internal/command.ts'
import { parsePositiveInt, parseSeverity, usageError } from '../internal/parse-options.ts'
import { printOut } from '../internal/print-out.ts'
import { reportError } from '../internal/report-error.ts'
import { withRunIndex } from '../internal/run-index-args.ts'
import { findingsText, outcomeText } from '../internal/run-text.ts'
import { STORE_DIR_ARG } from '../internal/store-dir-arg.ts'
import { formatTable } from '../internal/table.ts'

/**
 * `crashlab ls`: the stored runs, newest first, with filters; `--session last` (or an id): the runs of
 * the tests of one Vitest session, as the plugin indexed them, in file and test order.
 */
export const ls = defineCommand({
  meta: { name: 'ls', description: 'List the stored runs, newest first' },
  args: {
    ...STORE_DIR_ARG,
    flagged: { type: 'boolean', description: 'only runs with a finding ≥ warn, a failed check, or an error' },
    'min-severity': {
      type: 'string',
      description: `only runs with a finding at or above: ${SEVERITIES.join(', ')}`,
      valueHint: 'severity',
    },
    tag: { type: 'string', description: 'only runs with this tag', valueHint: 'tag' },
    session: {
      type: 'string',
      description: 'only the runs of the tests of one Vitest session: `last`, or its id (see --sessions)',
      valueHint: 'last|id',
    },
    sessions: { type: 'boolean', description: 'list the indexed Vitest sessions instead of runs' },
    limit: {
      type: 'string',
      description: 'at most this many runs (default 50; with --session, all)',
      valueHint: 'n',
    },
    json: { type: 'boolean', description: 'print the runs as JSON' },
  },
  async run({ args }) {
    try {
      const session = sessionArg(args.session)
      // A session lists all its tests unless told otherwise; the whole store, the newest 50.
      const limit =
        session && args.limit === undefined ? undefined : parsePositiveInt(args.limit, '--limit', 50)
      const filter = {
        flagged: args.flagged === true ? true : undefined,
        minSeverity: parseSeverity(args['min-severity'], '--min-severity'),
        tag: args.tag,
        session,
        limit,
      }
      await withRunIndex(args.dir, (store) => {
        if (args.sessions) {
          printSessions(store.sessions(), args.json === true)
          return
        }
        const runs = store.list(filter)
        if (args.json) {
          printOut(JSON.stringify(runs, null, 2))
          return
        }
        if (runs.length === 0) {
          printOut(emptyText(store.dir, session, args))
          return
        }
        const first = runs[0]?.test
        if (session && first) printOut(pc.dim(`Vitest session ${first.session} of ${first.sessionStartedAt}`))
        // The test column when a listed run came from a test (a store of captured runs has none).
        const tests = runs.some((r) => r.test)
        const header = ['id', 'name', 'status', 'outcome', 'steps', 'tokens', 'cost', 'findings', 'tags']
        printOut(
          formatTable(
            tests ? [...header, 'test'] : header,
            runs.map((r) => row(r, tests)),
            { right: [4, 5, 6] },
          ),
        )
      })
    } catch (err) {
      reportError(err)
    }
  },
})

function row(run: StoredRunSummary, withTest: boolean): string[] {
  const cells = [
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
  if (!withTest) return cells
  return [
    ...cells,
    run.test ? `${run.test.state === 'failed' ? pc.red('✗') : '✓'} ${run.test.file} > ${run.test.name}` : '—',
  ]
}

/** `--session`: `last` or a session id (a ULID, any case). */
function sessionArg(value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  const session = value.trim()
  if (session === 'last' || /^[0-9A-HJKMNP-TV-Z]{26}$/i.test(session)) return session
  throw usageError(
    `--session takes \`last\` or a session id (26 characters, see \`crashlab ls --sessions\`); got ${JSON.stringify(value)}`,
  )
}

function emptyText(
  dir: string,
  session: string | undefined,
  args: { flagged?: boolean; tag?: string; 'min-severity'?: string },
): string {
  if (session) {
    return (
      `No test runs of ${session === 'last' ? 'the last Vitest session' : `Vitest session ${session}`} in ${dir}${args.flagged || args.tag || args['min-severity'] ? ' match the filters' : ''}. ` +
      'The crashlab() plugin indexes the runs of each Vitest run that records or replays a cassette: run the tests (`npx vitest run`), then `crashlab ls --session last`.'
    )
  }
  return `No runs in ${dir}${args.flagged || args.tag || args['min-severity'] ? ' match the filters' : ''}. Record one with record() or capture(), or \`crashlab import <file>\`.`
}

function printSessions(
  sessions: Array<{ id: string; startedAt: string; runs: number }>,
  json: boolean,
): void {
  if (json) {
    printOut(JSON.stringify(sessions, null, 2))
    return
  }
  if (sessions.length === 0) {
    printOut('No Vitest session is indexed yet: run the tests with the crashlab() plugin.')
    return
  }
  printOut(
    formatTable(
      ['session', 'started', 'runs'],
      sessions.map((s) => [s.id, s.startedAt, String(s.runs)]),
      { right: [2] },
    ),
  )
}
