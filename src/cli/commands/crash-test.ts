import { resolve } from 'node:path'
import type { Run } from '../../case/schema/run.ts'
import { pc } from '../../colors.ts'
import { runCrashMatrix } from '../../crash/crash-matrix.ts'
import { crashEntryOf } from '../../crash/crash-variant.ts'
import {
  ALL_MCP_FAULTS,
  ALL_MODEL_FAULTS,
  ALL_TOOL_FAULTS,
  type Fault,
  parseFaultList,
} from '../../crash/faults.ts'
import { crashCells } from '../../crash/inject.ts'
import { renderCrashMatrix } from '../../crash/render-matrix.ts'
import type { RunStore } from '../../store/types.ts'
import { runCrashTasks } from '../../task-files/run-crash-tasks.ts'
import { DEFAULT_SLOTS } from '../../task-files/run-verify-tasks.ts'
import { defineCommand } from '../internal/command.ts'
import { parsePositiveInt, usageError } from '../internal/parse-options.ts'
import { reportError } from '../internal/report-error.ts'
import { ENTRY_CWD_ARG, STORE_DIR_ARG, withStore } from '../internal/store-args.ts'
import { VITEST_REPORTER_ARGS } from '../internal/vitest-args.ts'

/**
 * `crashlab crash-test <run|cassette> [--faults rate_limit,gateway_html:503,…] [--steps all|N,M] [--json]`:
 * replays a stored run once per fault at each step it fits, the step's answer replaced by the fault,
 * prints the matrix (steps × faults: survived, failed, diverged), stores each variant linked to the run
 * (`links.crashOf`), and exits 1 when a cell failed. With `--vitest [--shard i/n] [--reporter name]
 * [--output-file path] [--slots N]`, each cell is a Vitest task of the project, spread over the worker
 * pool and the shards; `--merge-reports <dir>` draws the matrix from the shards' blob reports.
 *
 * @example
 * // npx crashlab crash-test last --faults rate_limit,tool_throw --vitest --shard 1/2 --reporter blob
 * await runCommand(crashTestCommand, { rawArgs: ['last', '--faults', 'rate_limit', '--vitest'] })
 */
export const crashTestCommand = defineCommand({
  meta: {
    name: 'crash-test',
    description:
      "Replay a stored run with a fault at each step (a 429, a timeout, a cut stream, a tool's HTML error…): which ones does the agent survive? (exit 1 on a failed cell)",
  },
  args: {
    run: {
      type: 'positional',
      description: 'a run id, a unique prefix, `last`, or a cassette path',
      required: true,
    },
    faults: {
      type: 'string',
      description:
        'the faults, comma-separated: kind or kind:parameter (rate_limit:2, gateway_html:503, stream_cut:3, tool_throw:message, mcp_error_result:message); default: all',
      valueHint: 'list',
    },
    steps: {
      type: 'string',
      description: 'the steps to inject at: all (default) or N,M,…',
      valueHint: 'all|N,M',
    },
    json: { type: 'boolean', description: 'print the matrix as JSON' },
    vitest: {
      type: 'boolean',
      description: 'run each cell as its own Vitest task of the project, over the worker pool',
    },
    shard: {
      type: 'string',
      description:
        "with --vitest: Vitest's --shard (1/2); merge the shards' blob reports with --merge-reports",
      valueHint: 'i/n',
    },
    ...VITEST_REPORTER_ARGS,
    slots: {
      type: 'string',
      description: `with --vitest: task files the cells are dealt over (default ${DEFAULT_SLOTS})`,
      valueHint: 'n',
    },
    'merge-reports': {
      type: 'string',
      description: "draw the matrix from the shards' blob reports in this folder (vitest --merge-reports)",
      valueHint: 'dir',
    },
    ...STORE_DIR_ARG,
    ...ENTRY_CWD_ARG,
  },
  async run({ args }) {
    try {
      const faults: Fault[] =
        args.faults === undefined
          ? [...ALL_MODEL_FAULTS, ...ALL_TOOL_FAULTS, ...ALL_MCP_FAULTS]
          : parseFaultList(args.faults)
      await withStore(args.dir, async (store) => {
        const source = store.load(args.run)
        const steps = stepsOf(args.steps, source)
        if (args.vitest || args['merge-reports'] !== undefined) {
          process.exitCode = await crashTestWithVitest(source, store, faults, steps, args)
          return
        }
        const vitestOnly = (['shard', 'reporter', 'output-file', 'slots'] as const).filter(
          (name) => args[name] !== undefined,
        )
        if (vitestOnly.length > 0)
          throw usageError(
            `${vitestOnly.map((name) => `--${name}`).join(', ')} go${vitestOnly.length === 1 ? 'es' : ''} with --vitest: add --vitest, or drop ${vitestOnly.length === 1 ? 'it' : 'them'}`,
          )
        const progress = process.stderr.isTTY && !args.json
        const matrix = await runCrashMatrix(source, {
          faults,
          steps,
          store,
          cwd: args.cwd ? resolve(args.cwd) : process.cwd(),
          sourcePath: store.get(source.id).path,
          onProgress: progress
            ? (done, total) =>
                process.stderr.write(`\rcrash-testing run ${source.id}: ${done}/${total} variants`)
            : undefined,
        })
        if (progress) process.stderr.write('\n')
        if (args.json) console.log(JSON.stringify(matrix, null, 2))
        else {
          console.log(`crash test of run ${source.id} (${source.name})`)
          console.log(renderCrashMatrix(matrix.cells, source, { colors: pc }))
          const sent = matrix.network.requests.length + matrix.network.connections.length
          console.log(
            pc.dim(
              `network: ${sent === 0 ? 'nothing sent' : `${sent} sent`}; each variant is stored with the tag crash-test (\`crashlab ls --tag crash-test\`)`,
            ),
          )
        }
        if (matrix.cells.some((cell) => cell.outcome === 'failed')) process.exitCode = 1
      })
    } catch (err) {
      reportError(err)
    }
  },
})

/**
 * `--vitest` and `--merge-reports`: the crash test as Vitest tasks (`runCrashTasks`), one per cell. The
 * reporter prints the matrix (or, for a shard, its counts and how to merge); with `--json`, Vitest's
 * output goes to stderr and stdout is the matrix. Returns the exit code: 1 when a cell failed or Vitest
 * did.
 */
async function crashTestWithVitest(
  source: Run,
  store: RunStore,
  faults: Fault[],
  steps: number[] | undefined,
  args: {
    shard?: string
    reporter?: string
    'output-file'?: string
    slots?: string
    'merge-reports'?: string
    cwd?: string
    json?: boolean
  },
): Promise<number> {
  const merge = args['merge-reports']
  if (args.shard !== undefined && !/^\d+\/\d+$/.test(args.shard)) {
    throw usageError(`--shard takes i/n, as in --shard 1/2; got ${JSON.stringify(args.shard)}`)
  }
  // The same clear error as in this process: a run with no `module` entry point cannot be started.
  if (merge === undefined) crashEntryOf(source)
  const plan =
    merge === undefined
      ? { runId: source.id, faults, ...(steps && { steps }), cells: crashCells(source, faults, steps) }
      : null
  const result = await runCrashTasks(plan, {
    // With --json, Vitest's own output goes to stderr, so stdout is only the JSON.
    stdio: args.json ? 'pipe' : 'inherit',
    storeDir: store.dir,
    cwd: args.cwd ? resolve(args.cwd) : process.cwd(),
    ...(args.slots !== undefined && { slots: parsePositiveInt(args.slots, '--slots', DEFAULT_SLOTS) }),
    ...(args.shard && { shard: args.shard }),
    ...(args.reporter && { reporters: [args.reporter] }),
    ...(args['output-file'] && { outputFile: args['output-file'] }),
    ...(merge !== undefined && { mergeReports: merge }),
  })
  if (args.json) process.stderr.write(result.stdout + result.stderr)
  const { matrix } = result
  if (!matrix) {
    // A shard's reporter printed its counts and how to merge them.
    if (args.shard) return result.code
    console.error(`no crash-test matrix for run ${source.id}: see Vitest's output above`)
    return result.code === 0 ? 1 : result.code
  }
  if (matrix.runId !== source.id) {
    console.error(
      `the reports in ${merge} are a crash test of run ${matrix.runId}, not of run ${source.id}: merge them with \`crashlab crash-test ${matrix.runId} --merge-reports ${merge}\``,
    )
    return 1
  }
  if (args.json) console.log(JSON.stringify(matrix, null, 2))
  else console.log(pc.dim('each variant is stored with the tag crash-test (`crashlab ls --tag crash-test`)'))
  return result.code !== 0 || matrix.cells.some((cell) => cell.outcome === 'failed') ? 1 : 0
}

/** `--steps`: `all` (undefined: every step), or step indexes of the run. */
function stepsOf(text: string | undefined, run: Run): number[] | undefined {
  if (text === undefined || text.trim() === 'all') return undefined
  const steps = text.split(',').map((part) => part.trim())
  const out: number[] = []
  for (const part of steps) {
    const n = Number(part)
    if (part === '' || !Number.isInteger(n) || n < 0 || n >= run.steps.length)
      throw usageError(
        `--steps takes \`all\` or step numbers of run ${run.id} (0 to ${run.steps.length - 1}), comma-separated; got ${JSON.stringify(text)}`,
      )
    out.push(n)
  }
  return out
}
