import { resolve } from 'node:path'
import { projectMockReplay } from '../../agentcase-capture/index.ts'
import { loadAgentCase, writeAgentCase } from '../../case/agentcase/index.ts'
import type { Run } from '../../case/schema/run.ts'
import { pc } from '../../colors.ts'
import type { NetworkLedger } from '../../interceptor/index.ts'
import { noEntryPointError, replayRun, rerunEntry } from '../../rerun/index.ts'
import { defineCommand } from '../internal/command.ts'
import { usageError } from '../internal/parse-options.ts'
import { reportError } from '../internal/report-error.ts'
import { outcomeText } from '../internal/run-text.ts'
import { STORE_DIR_ARG, withStore } from '../internal/store-args.ts'

/**
 * `crashlab replay <id|last>`: runs a stored run's entry point again offline and stores the replay
 * (`replayOf` the source). Exits 0 for a faithful replay whatever its outcome (1 with `--expect-pass`
 * when the outcome is not pass), 1 when it diverged, 2 when it could not start (bad input).
 * `crashlab replay <file.agentcase> --mock -o out` writes the mock replay of a captured case instead
 * (no agent runs).
 */
export const replay = defineCommand({
  meta: {
    name: 'replay',
    description:
      'Re-run a stored run offline through its entry point and store the replay (exit 0 faithful, 1 diverged, 2 bad input)',
  },
  args: {
    run: {
      type: 'positional',
      description: 'a run id, a unique prefix, `last`, or with --mock an .agentcase file',
      required: true,
    },
    ...STORE_DIR_ARG,
    cwd: {
      type: 'string',
      description: 'the folder the entry point is resolved in and Vitest runs in (default: here)',
      valueHint: 'path',
    },
    entry: {
      type: 'string',
      description:
        'the agent to run, for a run that names none (an imported trace) or to run another: module#export',
      valueHint: 'module#export',
    },
    'allow-unused': { type: 'boolean', description: 'let the replay leave recorded steps unused' },
    'expect-pass': {
      type: 'boolean',
      description: 'exit 1 also when the replay is faithful but its outcome is not pass',
    },
    verbose: { type: 'boolean', description: "show Vitest's output when the entry point is a test" },
    mock: { type: 'boolean', description: 'write the mock replay of an .agentcase file (with --output)' },
    output: {
      type: 'string',
      alias: 'o',
      description: 'with --mock: the .agentcase file to write',
      valueHint: 'file',
    },
  },
  async run({ args }) {
    try {
      if (args.mock) return mockReplay(args.run, args.output)
      if (args.output)
        throw usageError('--output goes with --mock; a replay is stored (see `crashlab show <id>`)')
      const cwd = args.cwd ? resolve(args.cwd) : process.cwd()
      await withStore(args.dir, async (store) => {
        const stored = store.load(args.run)
        const source =
          args.entry === undefined ? stored : { ...stored, entryPoint: rerunEntry(stored, args.entry) }
        if (!source.entryPoint) throw noEntryPointError(source)
        console.log(`replaying run ${source.id} (${source.name}) through ${entryText(source)} …`)
        const { run, error, failure, network } = await replayRun(source, {
          store,
          cwd,
          sourcePath: store.get(source.id).path,
          allowUnused: args['allow-unused'],
          onOutput: args.verbose ? (chunk) => process.stderr.write(chunk) : undefined,
        })
        console.log(summary(run))
        if (error !== undefined) {
          console.error(pc.red(`replay failed (not faithful): ${messageOf(error)}`))
          process.exitCode = EXIT.diverged
          console.error(`  network: ${networkText(network)}`)
        } else {
          console.log(
            pc.green(
              `replayed: ${run.steps.length} steps served from the recording, ${networkText(network)}`,
            ),
          )
          console.log(outcomeLine(run, source, failure))
          if (args['expect-pass'] && run.outcome !== 'pass') process.exitCode = EXIT.diverged
        }
        console.log(`stored as ${run.id} (replay of ${source.id}): \`crashlab show ${run.id}\``)
      })
    } catch (err) {
      reportError(err)
      // Whatever stopped the replay from starting (a run, a flag, an entry point) is bad input.
      if (process.exitCode === 1) process.exitCode = EXIT.badInput
    }
  },
})

/** The exit codes of `crashlab replay` (docs/cli.md lists them). */
const EXIT = { diverged: 1, badInput: 2 } as const

/** The verdict of a faithful replay, beside what the run had: the same outcome is the expected one. */
function outcomeLine(run: Run, source: Run, failure: string | undefined): string {
  // A run whose agent threw failed, whatever its oracles said: its faithful replay fails the same way.
  const recorded = source.status === 'error' ? 'fail' : source.outcome
  const same = run.outcome === recorded ? ', as recorded' : `; the run's was ${recorded}`
  const failed = run.checks.filter((c) => !c.passed).map((c) => c.name)
  const why =
    failed.length > 0 ? ` (failed: ${failed.join(', ')})` : failure ? ` (${firstLine(failure)})` : ''
  const text = `faithful replay · outcome ${run.outcome}${why}${same}`
  return run.outcome === 'pass' ? pc.green(text) : pc.yellow(text)
}

function firstLine(text: string): string {
  const line = text.split('\n').find((l) => l.trim() !== '') ?? text
  return line.length > 160 ? `${line.slice(0, 157)}…` : line.trim()
}

function mockReplay(file: string, output: string | undefined): void {
  if (!output) throw usageError('crashlab replay <file.agentcase> --mock needs --output <out.agentcase>')
  const source = resolve(file)
  const out = resolve(output)
  const written = writeAgentCase(out, projectMockReplay(loadAgentCase(source), { source: file }))
  console.log(
    `wrote the mock replay of ${file} to ${out} (case ${written.case_id}, ${written.events.length} events)`,
  )
}

function entryText(run: Run): string {
  const entry = run.entryPoint
  if (!entry) return 'no entry point'
  return entry.kind === 'module' ? `${entry.module}#${entry.export}` : `test "${entry.test}" in ${entry.file}`
}

function summary(run: Run): string {
  return (
    `  status ${run.status === 'ok' ? run.status : pc.red(run.status)} · outcome ${outcomeText(run.outcome)} · ` +
    `${run.steps.length} steps · ${run.findings.length} finding${run.findings.length === 1 ? '' : 's'}`
  )
}

/** What the replay let out, as counted: "nothing sent" only when the count says so. */
function networkText(network: NetworkLedger | undefined): string {
  if (!network) return 'network not counted (the replay wrote no count)'
  const sent = [...network.requests, ...network.connections]
  const refused = network.refused.length
  const refusedText = refused > 0 ? `; ${refused} refused: ${listed(network.refused)}` : ''
  if (sent.length === 0) return `nothing sent${refusedText}`
  return (
    `sent ${network.requests.length} request${network.requests.length === 1 ? '' : 's'} and ` +
    `${network.connections.length} connection${network.connections.length === 1 ? '' : 's'} to loopback or ` +
    `allowed hosts: ${listed(sent)}${refusedText}`
  )
}

function listed(items: string[]): string {
  const unique = [...new Set(items)]
  return unique.length > 5 ? `${unique.slice(0, 5).join(', ')}, …` : unique.join(', ')
}

function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error)
  return text.replace(/^\[crashlab\] /, '')
}
