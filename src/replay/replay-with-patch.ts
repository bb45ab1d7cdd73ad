import type { Run } from '../case/schema/run.ts'
import { applyOracles } from '../checks/oracles/apply-oracles.ts'
import { registeredOracles } from '../checks/oracles/internal/oracle-registry.ts'
import { RuntimeChecks } from '../checks/runtime/runtime-checks.ts'
import { loadConfig } from '../config/load-config.ts'
import { mergeConfig } from '../config/merge-config.ts'
import { runInSession } from '../engine/context.ts'
import { Session } from '../engine/session.ts'
import type { RequestDecision, SessionHooks } from '../engine/types.ts'
import { CrashlabError } from '../errors.ts'
import { applyPatch } from '../patches/apply-patch.ts'
import type { Patch } from '../patches/patch-schema.ts'
import { createRedactor } from '../redact/create-redactor.ts'
import { markFailed } from './internal/mark-failed.ts'
import { interceptHostsOf, loadEntry, storedChecks } from './internal/replay-module.ts'
import { noEntryPointError, type ReplayResult, type ReplayRunOptions } from './replay-run.ts'

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
export async function replayWithPatch(source: Run, options: ReplayWithPatchOptions): Promise<ReplayResult> {
  const entry = source.entryPoint
  if (!entry) throw noEntryPointError(source)
  if (entry.kind !== 'module') {
    throw new CrashlabError(
      'E_REPLAY_ENTRY',
      `run ${source.id} (${source.name}) was started by the test ${entry.test}: only a run with a module entry ` +
        'point can be replayed with a patch re-applied. Record the agent with `record(name, fn, { entryPoint: ' +
        "{ kind: 'module', … } })` to export its fixes.",
      { subject: source.id },
    )
  }
  const { atStep, patch } = options
  if (!Number.isInteger(atStep) || atStep < 0) {
    throw new CrashlabError('E_REPLAY_ENTRY', `atStep must be a step number ≥ 0; got ${atStep}`, {
      subject: source.id,
    })
  }
  const cwd = options.cwd ?? process.cwd()
  const { config } = await loadConfig({ cwd, file: options.config })
  const layered = mergeConfig(config, { checks: storedChecks(source) })
  const checks = new RuntimeChecks({ checks: layered.checks, prices: layered.prices })
  const redactor = config.redaction ? createRedactor(config.redaction) : undefined
  const hooks: SessionHooks = { ...checks.hooks, onRequest: patchFrom(patch, atStep) }
  const interceptor = options.intercept === false ? undefined : interceptHostsOf(source)
  let replayed: Run
  let error: unknown
  try {
    const fn = await loadEntry(entry, cwd)
    const session = new Session({
      mode: 'replay',
      recorded: source,
      cassettePath: options.sourcePath,
      redactor,
      hooks,
      onWarning: () => {},
    })
    session.run.entryPoint = source.entryPoint
    session.run.metadata = { ...source.metadata }
    let result: { output?: unknown; error?: unknown }
    try {
      result = { output: await runInSession(session, () => fn(source.input)) }
    } catch (agentError) {
      result = { error: agentError }
    }
    try {
      replayed = await session.finish(result)
      error = result.error
    } catch (failure) {
      replayed = markFailed(session.run, failure)
      error = failure
    }
  } finally {
    await interceptor?.close()
  }
  let run = checks.finalize(replayed)
  if (registeredOracles(source.name).length > 0) run = (await applyOracles(run, { agent: source.name })).run
  else if (error === undefined) run = { ...run, checks: source.checks, outcome: source.outcome }
  run = { ...run, links: { ...run.links, replayOf: source.id } }
  const stored = options.store?.save(run, { tags: options.tags })
  return { run, ...(error !== undefined && { error }), ...(stored && { stored }) }
}

/** The replay's `onRequest` hook: each model request from `atStep` on is patched before it is matched. */
function patchFrom(patch: Patch, atStep: number): NonNullable<SessionHooks['onRequest']> {
  return (ctx): RequestDecision | undefined => {
    if (ctx.kind !== 'llm' || !ctx.normalized) return undefined
    const step = ctx.session.run.steps.length
    if (step < atStep) return undefined
    return { rewrite: applyPatch(patch, ctx.normalized, { step }).request }
  }
}
