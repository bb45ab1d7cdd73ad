import { isAbsolute, join, relative, resolve } from 'node:path'
import type { Run, Verification } from '../../case/schema/run.ts'
import { pc } from '../../colors.ts'
import { diagnose } from '../../diagnose/index.ts'
import type { requestAt } from '../../fix/prompt.ts'
import type { ProposedFixes, ProposeFixesOptions } from '../../fix/propose-fixes.ts'
import { fork } from '../../fork/index.ts'
import { parsePatch } from '../../patches/parse-patch.ts'
import { renderPatchDiff } from '../../patches/render-patch-diff.ts'
import { openStore } from '../../store/index.ts'
import type { RunStore } from '../../store/types.ts'
import { verify } from '../../verify/verify.ts'
import { defineCommand } from '../internal/command.ts'
import { usageError } from '../internal/parse-options.ts'
import { reportError } from '../internal/report-error.ts'
import { outcomeText } from '../internal/run-text.ts'
import { proposeAndSave } from '../internal/save-fixes.ts'
import { STORE_DIR_ARG, withStore } from '../internal/store-args.ts'
import { formatDiagnosis } from './diagnose.ts'
import { runVerify, VERIFY_ARGS, verifyOptionsOf } from './verify.ts'

/** VERIFY_ARGS without `--base-url` (here the fixer's endpoint: `--fork-base-url` takes its place) and `--cwd`. */
const { 'base-url': _forkBaseUrl, cwd: _cwd, ...CHAIN_VERIFY_ARGS } = VERIFY_ARGS

/**
 * `crashlab fix <id|last> [--try | --verify]`: 1–3 ranked typed patches proposed from the run's diagnosis
 * by one LLM call, each kept only when it parses, finds its target, is small, is not test-only and does
 * not hard-code the run's data; stored with the run and written as patch files for `crashlab fork
 * --patch`. `--try` forks the run once with the top fix and prints the fork's outcome and checks.
 * `--verify` runs the whole chain: diagnoses the run first when it has no diagnosis (with the model
 * options when a model is set, else by rules), proposes the fixes, then verifies them in rank order
 * (`crashlab verify`) until one is VERIFIED; exit 0 when one is.
 *
 * @example
 * // npx crashlab fix last --model gpt-5-mini --try
 * await runCommand(fixCommand, { rawArgs: ['last', '--model', 'gpt-5-mini', '--try'] })
 */
export const fixCommand = defineCommand({
  meta: {
    name: 'fix',
    description: "Propose 1–3 ranked patches from a run's diagnosis; --try forks with the top one",
  },
  args: {
    run: { type: 'positional', description: 'a run id, a unique prefix, or `last`', required: true },
    try: { type: 'boolean', description: 'fork the run once with the top fix and show its checks' },
    verify: {
      type: 'boolean',
      description:
        'diagnose (if needed), propose, then verify the fixes in rank order until one is VERIFIED (exit 0)',
    },
    ...CHAIN_VERIFY_ARGS,
    'fork-base-url': {
      type: 'string',
      description:
        "with --verify: send the forks' live model calls to this origin instead of the recorded one",
      valueHint: 'url',
    },
    model: {
      type: 'string',
      description: 'the fixer model (default $CRASHLAB_FIXER_MODEL, then $CRASHLAB_DIAGNOSER_MODEL)',
      valueHint: 'name',
    },
    'base-url': {
      type: 'string',
      description: 'an OpenAI-compatible or Anthropic endpoint (default $CRASHLAB_FIXER_BASE_URL)',
      valueHint: 'url',
    },
    'api-key-env': {
      type: 'string',
      description: 'the environment variable holding the key (default CRASHLAB_FIXER_API_KEY)',
      valueHint: 'VAR',
    },
    api: {
      type: 'string',
      description: 'openai or anthropic (default: from the base URL)',
      valueHint: 'api',
    },
    out: {
      type: 'string',
      description: 'where the patch files go (default <store>/fixes/<run id>)',
      valueHint: 'dir',
    },
    ...STORE_DIR_ARG,
    cwd: {
      type: 'string',
      description: 'the folder the entry point is resolved in, for --try and --verify (default: here)',
      valueHint: 'path',
    },
    json: { type: 'boolean', description: 'print the fixes, the rejected proposals and the files as JSON' },
  },
  async run({ args }) {
    try {
      if (args.api !== undefined && args.api !== 'openai' && args.api !== 'anthropic') {
        throw usageError(`--api must be openai or anthropic; got ${JSON.stringify(args.api)}`)
      }
      const keyVar = args['api-key-env']
      if (keyVar && process.env[keyVar] === undefined) {
        throw usageError(`--api-key-env ${keyVar}: that environment variable is not set`)
      }
      if (args.try && args.verify)
        throw usageError('--try and --verify: pick one (--verify forks k times per fix)')
      const fixer: ProposeFixesOptions = {
        model: args.model,
        baseUrl: args['base-url'],
        apiKey: keyVar ? process.env[keyVar] : undefined,
        api: args.api as 'openai' | 'anthropic' | undefined,
      }
      await withStore(args.dir, async (store) => {
        let run = store.load(args.run)
        if (args.verify && !run.diagnosis) run = await diagnoseFirst(run, store, fixer, args.json === true)
        const out = args.out ? resolve(args.out) : join(store.dir, 'fixes', run.id)
        const { proposed, files, at, run: fixed } = await proposeAndSave(run, store, fixer, out)
        if (args.json && !args.verify) {
          console.log(JSON.stringify({ ...proposed, files, step: at?.step ?? null }, null, 2))
        } else if (!args.json) {
          console.log(formatFixes(fixed, proposed, files, at))
        }
        const cwd = args.cwd ? resolve(args.cwd) : process.cwd()
        if (args.verify) {
          const verified = await verifyInOrder(fixed, store, {
            ...verifyOptionsOf(
              {
                ...args,
                'base-url': args['fork-base-url'],
                cwd,
              },
              store,
            ),
            json: args.json === true,
          })
          if (args.json) {
            console.log(
              JSON.stringify(
                {
                  ...proposed,
                  files,
                  step: at?.step ?? null,
                  diagnosis: fixed.diagnosis,
                  verifications: verified,
                },
                null,
                2,
              ),
            )
          }
          if (!verified.some((v) => v.verification.verdict === 'VERIFIED')) {
            if (!args.json) {
              console.log(
                pc.yellow(
                  proposed.fixes.length === 0
                    ? `no fix to verify for run ${fixed.id}`
                    : `no fix of run ${fixed.id} was VERIFIED; see them with \`crashlab report ${fixed.id}\``,
                ),
              )
            }
            process.exitCode = 1
          }
          return
        }
        if (!args.try) return
        const top = proposed.fixes[0]
        if (!top) throw usageError(`--try: no fix was kept for run ${run.id}, so there is nothing to try`)
        if (!at) throw usageError(`--try: run ${run.id} makes no model call a fix could change`)
        console.log(`\ntrying ${top.id}: forking run ${run.id} at step ${at.step} …`)
        const { run: forked, error } = await fork(run, {
          atStep: at.step,
          patch: parsePatch(top.patch, top.id),
          store,
          tags: ['fix', `fixes:${run.id}`, top.id],
          cwd,
          sourcePath: store.get(run.id).path,
        })
        console.log(formatTry(forked, error))
        if (error !== undefined || forked.outcome === 'fail') process.exitCode = 1
      })
    } catch (err) {
      reportError(err)
    }
  },
})

/**
 * The first link of `fix --verify` on a run with no diagnosis: diagnosed with the model options when a
 * diagnoser model is set (`--model`, else $CRASHLAB_DIAGNOSER_MODEL), by rules otherwise; says which.
 */
async function diagnoseFirst(
  run: Run,
  store: RunStore,
  fixer: ProposeFixesOptions,
  json: boolean,
): Promise<Run> {
  const model = fixer.model ?? process.env.CRASHLAB_DIAGNOSER_MODEL
  if (!json) {
    console.log(
      model
        ? `run ${run.id} has no diagnosis: diagnosing it with model ${model} …`
        : `run ${run.id} has no diagnosis: diagnosing it by rules (--heuristic; no diagnoser model is set) …`,
    )
  }
  const recordTo = model ? await openStore({ dir: join(store.dir, 'diagnoser') }) : undefined
  try {
    const diagnosis = await diagnose(run, {
      heuristic: !model,
      ...(model && { model, baseUrl: fixer.baseUrl, apiKey: fixer.apiKey, api: fixer.api, recordTo }),
    })
    const diagnosed: Run = { ...run, diagnosis }
    store.save(diagnosed)
    if (!json) console.log(`${formatDiagnosis(diagnosis)}\n`)
    return diagnosed
  } finally {
    recordTo?.close()
  }
}

/** Verifies the run's fixes in rank order, stopping at the first VERIFIED one. */
async function verifyInOrder(
  run: Run,
  store: RunStore,
  options: Omit<Parameters<typeof verify>[1], 'fix'> & { json: boolean },
): Promise<Array<{ fix: string; verification: Verification }>> {
  const { json, ...rest } = options
  const done: Array<{ fix: string; verification: Verification }> = []
  let current = run
  for (const fix of [...run.fixes].sort((a, b) => a.rank - b.rank)) {
    if (!json) console.log('')
    const result = json
      ? await verify(current, { ...rest, fix: fix.id, store })
      : await runVerify(current, store, { ...rest, fix: fix.id }, false)
    current = result.run
    done.push({ fix: fix.id, verification: result.verification })
    if (result.verification.verdict === 'VERIFIED') break
  }
  return done
}

function shown(file: string): string {
  const rel = relative(process.cwd(), file)
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file
}

function formatFixes(
  run: Run,
  { fixes, rejected }: ProposedFixes,
  files: string[],
  at: ReturnType<typeof requestAt>,
): string {
  const lines: string[] = []
  if (fixes.length === 0) lines.push(pc.yellow(`no fix kept for run ${run.id}`))
  for (const [i, fix] of fixes.entries()) {
    const file = files[i] as string
    lines.push(`${pc.bold(`${fix.id}`)} ${pc.dim(`(rank ${fix.rank}) → ${shown(file)}`)}`)
    lines.push(`  why: ${fix.rationale}`, `  expected: ${fix.expectedEffect}`)
    if (at) {
      const diff = renderPatchDiff(parsePatch(fix.patch, fix.id), at.request, { step: at.step })
      lines.push(...diff.split('\n').map((l) => `    ${l}`))
    }
    // A run with no entry point cannot be forked live: its dry run still shows the patch's diff.
    const dry = run.entryPoint ? '' : ' --dry-run'
    if (at)
      lines.push(pc.dim(`  next: npx crashlab fork ${run.id} --at ${at.step} --patch ${shown(file)}${dry}`))
    lines.push('')
  }
  for (const r of rejected) {
    const kind = (r.patch as { kind?: unknown } | null)?.kind
    lines.push(pc.dim(`rejected${typeof kind === 'string' ? ` ${kind}` : ''}: ${r.reason}`))
  }
  return lines.join('\n').trimEnd()
}

function formatTry(forked: Run, error: unknown): string {
  const lines = [`fork ${forked.id}: status ${forked.status} · outcome ${outcomeText(forked.outcome)}`]
  for (const c of forked.checks) {
    const mark = c.passed ? pc.green('✓') : pc.red('✗')
    lines.push(`  ${mark} ${c.name}${c.message ? ` ${pc.dim(c.message)}` : ''}`)
  }
  if (forked.checks.length === 0) lines.push(pc.dim('  no checks ran'))
  if (error !== undefined) {
    const text = error instanceof Error ? error.message : String(error)
    lines.push(pc.red(`fork failed: ${text.replace(/^\[crashlab\] /, '')}`))
  }
  lines.push(pc.dim(`  compare: npx crashlab diff ${forked.id}`))
  return lines.join('\n')
}
