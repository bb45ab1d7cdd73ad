import type { Run } from '../case/schema/run.ts'
import type { Patch } from '../patches/patch-schema.ts'
import { type ReplayResult, type ReplayRunOptions, replayRun } from './replay-run.ts'

/**
 * Options of `replayWithPatch`.
 *
 * @example
 * const options: ReplayWithPatchOptions = { patch: { kind: 'system_prompt', op: 'append', text: 'Name the order.' }, atStep: 2 }
 */
export interface ReplayWithPatchOptions
  extends Pick<ReplayRunOptions, 'cwd' | 'store' | 'tags' | 'config' | 'sourcePath' | 'intercept'> {
  /** Applied to every model request from `atStep` on, before it is matched against the recording. */
  patch: Patch
  /** The step the patch applies from: 0-based over all steps, the fork step of the run replayed. */
  atStep: number
}

/**
 * Replays a patched fork offline: like `replayRun`, strictly, against the run's own recording, but with
 * `patch` applied to every model request from `atStep` on (as `fork` applied it when it went live), so
 * that the agent's requests match the patched requests the fork recorded. A fork stored by `verify` or
 * `crashlab fix --try` replays this way with its `links.patch` and `links.forkStep`; without the patch
 * the replay diverges at the fork step. Only a run with a `module` entry point can be replayed so
 * (`E_REPLAY_ENTRY` otherwise). A divergence does not throw: the replay is returned with it as `error`.
 *
 * @example
 * import { openStore, replayWithPatch } from 'crashlab'
 *
 * const store = await openStore()
 * const forked = store.load('01J…')
 * const { run, error } = await replayWithPatch(forked, { patch: forked.links.patch as Patch, atStep: 2 })
 * console.log(run.outcome, error ? 'diverged' : 'replayed')
 */
export function replayWithPatch(source: Run, options: ReplayWithPatchOptions): Promise<ReplayResult> {
  const { patch, atStep, ...rest } = options
  return replayRun(source, { ...rest, reapply: { patch, atStep } })
}
