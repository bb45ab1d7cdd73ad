import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Run } from '../../case/schema/run.ts'
import { pc } from '../../colors.ts'
import { fork } from '../../fork/index.ts'
import { leaves } from '../../patches/define-patch.ts'
import { parsePatch } from '../../patches/parse-patch.ts'
import type { Patch } from '../../patches/patch-schema.ts'
import { renderPatchDiff } from '../../patches/render-patch-diff.ts'
import { noEntryPointError } from '../../rerun/index.ts'
import { defineCommand } from '../internal/command.ts'
import { usageError } from '../internal/parse-options.ts'
import { reportError } from '../internal/report-error.ts'
import { outcomeText } from '../internal/run-text.ts'
import { ENTRY_CWD_ARG, STORE_DIR_ARG, withStore } from '../internal/store-args.ts'

/**
 * `crashlab fork <id|last> --at N [--patch fix.yaml] [--system-append "..."] [--base-url url] [--dry-run]`:
 * starts a stored run's entry point again, replayed up to step N and live from it, the patch applied to
 * every model request from N on; stores the fork (`forkedFrom`, `forkStep`, `patch`). `--dry-run` prints
 * the patch's diff against the model request at or after step N (without a patch: what the fork would
 * replay and the request a patch would change) and runs nothing.
 */
export const forkCommand = defineCommand({
  meta: {
    name: 'fork',
    description: 'Re-run a stored run live from step N, with a patch applied to its model requests',
  },
  args: {
    run: { type: 'positional', description: 'a run id, a unique prefix, or `last`', required: true },
    at: {
      type: 'string',
      description: 'the step the fork goes live from (0-based, as `crashlab show` lists them)',
      valueHint: 'N',
    },
    patch: { type: 'string', description: 'a patch file (YAML or JSON)', valueHint: 'file' },
    'system-append': {
      type: 'string',
      description: 'append this text to the system prompt (a system_prompt append patch)',
      valueHint: 'text',
    },
    'base-url': {
      type: 'string',
      description: 'send the live model calls to this origin instead of the recorded one',
      valueHint: 'url',
    },
    'dry-run': { type: 'boolean', description: "print the patch's diff and run nothing" },
    ...STORE_DIR_ARG,
    ...ENTRY_CWD_ARG,
  },
  async run({ args }) {
    try {
      const patch = patchOf(args.patch, args['system-append'])
      await withStore(args.dir, async (parent) => {
        const source = parent.load(args.run)
        const atStep = stepOf(args.at, source)
        if (args['dry-run']) return dryRun(source, atStep, patch)
        if (!source.entryPoint) throw noEntryPointError(source)
        console.log(`forking run ${source.id} (${source.name}) at step ${atStep} …`)
        const { run, error } = await fork(source, {
          atStep,
          patch,
          baseUrl: args['base-url'],
          store: parent,
          cwd: args.cwd ? resolve(args.cwd) : process.cwd(),
          sourcePath: parent.get(source.id).path,
        })
        const live = run.steps.length - atStep
        console.log(
          `  status ${run.status === 'ok' ? run.status : pc.red(run.status)} · outcome ${outcomeText(run.outcome)} · ` +
            `${atStep} steps replayed, ${live} live · ${blockedCount(run)} blocked`,
        )
        if (error !== undefined) {
          console.error(pc.red(`fork failed: ${messageOf(error)}`))
          process.exitCode = 1
        }
        console.log(
          `stored as ${run.id} (fork of ${source.id} at step ${atStep}): \`crashlab diff ${run.id}\``,
        )
      })
    } catch (err) {
      reportError(err)
    }
  },
})

function patchOf(file: string | undefined, systemAppend: string | undefined): Patch | undefined {
  const patches: Patch[] = []
  if (file) {
    let text: string
    try {
      text = readFileSync(resolve(file), 'utf8')
    } catch {
      throw usageError(`--patch: cannot read ${file}`)
    }
    patches.push(parsePatch(text, file))
  }
  if (systemAppend !== undefined)
    patches.push(parsePatch({ kind: 'system_prompt', op: 'append', text: systemAppend }))
  if (patches.length <= 1) return patches[0]
  return { kind: 'compose', patches: patches.flatMap((p) => leaves(p)) }
}

function stepOf(at: string | undefined, run: Run): number {
  if (at === undefined) throw usageError('crashlab fork needs --at N, the step the fork goes live from')
  const n = Number(at)
  if (!Number.isInteger(n) || n < 0 || n >= run.steps.length)
    throw usageError(
      `--at must be a step of run ${run.id}, 0 to ${run.steps.length - 1}; got ${JSON.stringify(at)}`,
    )
  return n
}

function dryRun(run: Run, atStep: number, patch: Patch | undefined): void {
  const step = run.steps.find((s) => s.index >= atStep && s.type === 'llm' && s.request.normalized)
  if (!patch) {
    dryRunPlan(run, atStep, step?.type === 'llm' ? step : undefined)
    return
  }
  if (step?.type !== 'llm' || !step.request.normalized)
    throw usageError(
      `run ${run.id} makes no model call at or after step ${atStep}: the patch would change nothing`,
    )
  console.log(`dry run: the patch against the model request of step ${step.index} of run ${run.id}`)
  console.log(renderPatchDiff(patch, step.request.normalized, { step: step.index }))
  console.log('nothing was run')
}

/**
 * `--dry-run` without a patch: what a fork at `atStep` would replay and where it goes live, and the
 * model request a patch would change (its system prompt and last message), so the next step is writing
 * that patch.
 */
function dryRunPlan(
  run: Run,
  atStep: number,
  step: Extract<Run['steps'][number], { type: 'llm' }> | undefined,
): void {
  const replayed = atStep === 0 ? 'replays nothing' : `replays steps 0–${atStep - 1} from the recording`
  console.log(
    `dry run: a fork of run ${run.id} at step ${atStep} ${replayed} and goes live from step ${atStep}`,
  )
  const request = step?.request.normalized
  if (!step || !request) {
    console.log(
      `  run ${run.id} makes no model call at or after step ${atStep}: a patch to its requests would change nothing`,
    )
  } else {
    console.log(`  the model request of step ${step.index}, which a patch changes:`)
    const system = request.system.map((p) => (p.type === 'text' ? p.text : `[${p.type}]`)).join('\n')
    console.log(`    system: ${clip(system || '(none)')}`)
    const last = request.messages.at(-1)
    if (last) {
      const text = last.parts
        .map((p) => (p.type === 'text' ? p.text : p.type === 'tool_result' ? p.content : `[${p.type}]`))
        .join(' ')
      console.log(`    last message (${last.role}): ${clip(text)}`)
    }
  }
  console.log("  give --patch <file> or --system-append <text> to see the patch's diff against it")
  console.log('nothing was run')
}

function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > 200 ? `${line.slice(0, 197)}…` : line
}

function blockedCount(run: Run): number {
  return run.steps.filter((s) => s.type === 'tool' && s.blocked).length
}

function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error)
  return text.replace(/^\[crashlab\] /, '')
}
