import { mkdirSync, writeFileSync } from 'node:fs'
import { isAbsolute, join, relative, resolve } from 'node:path'
import { defineCommand } from 'citty'
import pc from 'picocolors'
import type { FixProposal, Run } from '../../case/schema/run.ts'
import { requestAt } from '../../fix/internal/prompt.ts'
import { type ProposedFixes, proposeFixes } from '../../fix/propose-fixes.ts'
import { fork } from '../../fork/index.ts'
import { parsePatch, serializePatch } from '../../patches/parse-patch.ts'
import { renderPatchDiff } from '../../patches/render-patch-diff.ts'
import { openStore } from '../../store/index.ts'
import { usageError } from '../internal/parse-options.ts'
import { reportError } from '../internal/report-error.ts'
import { outcomeText } from '../internal/run-text.ts'
import { STORE_DIR_ARG, withStore } from '../internal/store-args.ts'

/**
 * `crashlab fix <id|last> [--try]`: 1–3 ranked typed patches proposed from the run's diagnosis by one LLM
 * call, each kept only when it parses, finds its target, is small, is not test-only and does not
 * hard-code the run's data; stored with the run and written as patch files for `crashlab fork --patch`.
 * `--try` forks the run once with the top fix and prints the fork's outcome and checks.
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
      description: 'the folder the entry point is resolved in, for --try (default: here)',
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
      await withStore(args.dir, async (store) => {
        const run = store.load(args.run)
        const recordTo = await openStore({ dir: join(store.dir, 'fixer') })
        let proposed: ProposedFixes
        try {
          proposed = await proposeFixes(run, {
            model: args.model,
            baseUrl: args['base-url'],
            apiKey: keyVar ? process.env[keyVar] : undefined,
            api: args.api as 'openai' | 'anthropic' | undefined,
            recordTo,
          })
        } finally {
          recordTo.close()
        }
        store.save({ ...run, fixes: proposed.fixes })
        const out = args.out ? resolve(args.out) : join(store.dir, 'fixes', run.id)
        const files = writeFixes(proposed.fixes, out)
        const at = requestAt(run, run.diagnosis?.failingStep ?? null)
        if (args.json) {
          console.log(JSON.stringify({ ...proposed, files, step: at?.step ?? null }, null, 2))
        } else {
          console.log(formatFixes(run, proposed, files, at))
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
          cwd: args.cwd ? resolve(args.cwd) : process.cwd(),
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

function writeFixes(fixes: FixProposal[], out: string): string[] {
  if (fixes.length === 0) return []
  mkdirSync(out, { recursive: true })
  return fixes.map((fix) => {
    const file = join(out, `${fix.id}.yaml`)
    const header = [`# ${fix.id}: ${fix.rationale}`, `# expected effect: ${fix.expectedEffect}`]
      .map((line) => line.replace(/\s*\n\s*/g, ' '))
      .join('\n')
    writeFileSync(file, `${header}\n${serializePatch(parsePatch(fix.patch, fix.id), 'yaml')}`)
    return file
  })
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
    if (at) lines.push(pc.dim(`  next: npx crashlab fork ${run.id} --at ${at.step} --patch ${shown(file)}`))
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
