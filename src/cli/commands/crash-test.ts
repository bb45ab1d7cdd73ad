import { resolve } from 'node:path'
import type { Run } from '../../case/schema/run.ts'
import { pc } from '../../colors.ts'
import { runCrashMatrix } from '../../crash/crash-matrix.ts'
import { ALL_MODEL_FAULTS, ALL_TOOL_FAULTS, type Fault, parseFaultList } from '../../crash/faults.ts'
import { renderCrashMatrix } from '../../crash/render-matrix.ts'
import { defineCommand } from '../internal/command.ts'
import { usageError } from '../internal/parse-options.ts'
import { reportError } from '../internal/report-error.ts'
import { ENTRY_CWD_ARG, STORE_DIR_ARG, withStore } from '../internal/store-args.ts'

/**
 * `crashlab crash-test <run|cassette> [--faults rate_limit,gateway_html:503,…] [--steps all|N,M] [--json]`:
 * replays a stored run once per fault at each step it fits, the step's answer replaced by the fault,
 * prints the matrix (steps × faults: survived, failed, diverged), stores each variant linked to the run
 * (`links.crashOf`), and exits 1 when a cell failed.
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
        'the faults, comma-separated: kind or kind:parameter (rate_limit:2, gateway_html:503, stream_cut:3, tool_throw:message); default: all',
      valueHint: 'list',
    },
    steps: {
      type: 'string',
      description: 'the steps to inject at: all (default) or N,M,…',
      valueHint: 'all|N,M',
    },
    json: { type: 'boolean', description: 'print the matrix as JSON' },
    ...STORE_DIR_ARG,
    ...ENTRY_CWD_ARG,
  },
  async run({ args }) {
    try {
      const faults: Fault[] =
        args.faults === undefined ? [...ALL_MODEL_FAULTS, ...ALL_TOOL_FAULTS] : parseFaultList(args.faults)
      await withStore(args.dir, async (store) => {
        const source = store.load(args.run)
        const steps = stepsOf(args.steps, source)
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
