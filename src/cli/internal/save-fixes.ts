import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FixProposal, Run } from '../../case/schema/run.ts'
import { requestAt } from '../../fix/prompt.ts'
import { type ProposedFixes, type ProposeFixesOptions, proposeFixes } from '../../fix/propose-fixes.ts'
import { parsePatch, serializePatch } from '../../patches/parse-patch.ts'
import { openStore } from '../../store/index.ts'
import type { RunStore } from '../../store/types.ts'

/**
 * What `proposeAndSave` did: the fixes (kept and rejected), their patch files, the model request they
 * change, and the run as stored with them.
 */
export interface SavedFixes {
  proposed: ProposedFixes
  files: string[]
  at: ReturnType<typeof requestAt>
  run: Run
}

/**
 * Proposes fixes for a diagnosed run (the fixer's call recorded in `<store>/fixer`), stores them with the
 * run and writes them as patch files to `out` (default `<store>/fixes/<run id>`). `fix` and
 * `diagnose --fix` share it.
 *
 * @example
 * const { run, files } = await proposeAndSave(store.load('last'), store, { model: 'gpt-5-mini' })
 */
export async function proposeAndSave(
  run: Run,
  store: RunStore,
  options: ProposeFixesOptions,
  out: string = join(store.dir, 'fixes', run.id),
): Promise<SavedFixes> {
  const recordTo = await openStore({ dir: join(store.dir, 'fixer') })
  let proposed: ProposedFixes
  try {
    proposed = await proposeFixes(run, { ...options, recordTo })
  } finally {
    recordTo.close()
  }
  const fixed: Run = { ...run, fixes: proposed.fixes }
  store.save(fixed)
  const files = writeFixes(proposed.fixes, out)
  return { proposed, files, at: requestAt(run, run.diagnosis?.failingStep ?? null), run: fixed }
}

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
