import { resolve } from 'node:path'
import { defineCommand } from 'citty'
import pc from 'picocolors'
import { projectMockReplay } from '../../capture/index.ts'
import { loadAgentCase, writeAgentCase } from '../../case/agentcase/index.ts'
import type { Run } from '../../case/schema/run.ts'
import type { NetworkLedger } from '../../interceptor/index.ts'
import { noEntryPointError, replayRun } from '../../replay/index.ts'
import { usageError } from '../internal/parse-options.ts'
import { reportError } from '../internal/report-error.ts'
import { outcomeText } from '../internal/run-text.ts'
import { STORE_DIR_ARG, withStore } from '../internal/store-args.ts'

/**
 * `crashlab replay <id|last>`: runs a stored run's entry point again offline and stores the replay
 * (`replayOf` the source); exits 1 when it diverged. `crashlab replay <file.agentcase> --mock -o out`
 * writes the mock replay of a captured case instead (no agent runs).
 */
export const replay = defineCommand({
  meta: {
    name: 'replay',
    description:
      'Re-run a stored run offline through its entry point and store the replay (exit 1 on divergence)',
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
    'allow-unused': { type: 'boolean', description: 'let the replay leave recorded steps unused' },
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
        const source = store.load(args.run)
        if (!source.entryPoint) throw noEntryPointError(source)
        console.log(`replaying run ${source.id} (${source.name}) through ${entryText(source)} …`)
        const { run, error, network } = await replayRun(source, {
          store,
          cwd,
          sourcePath: store.get(source.id).path,
          allowUnused: args['allow-unused'],
          onOutput: args.verbose ? (chunk) => process.stderr.write(chunk) : undefined,
        })
        console.log(summary(run))
        if (error !== undefined) {
          console.error(pc.red(`replay failed: ${messageOf(error)}`))
          process.exitCode = 1
          console.error(`  network: ${networkText(network)}`)
        } else {
          console.log(
            pc.green(
              `replayed: ${run.steps.length} steps served from the recording, ${networkText(network)}`,
            ),
          )
        }
        console.log(`stored as ${run.id} (replay of ${source.id}): \`crashlab show ${run.id}\``)
      })
    } catch (err) {
      reportError(err)
    }
  },
})

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
