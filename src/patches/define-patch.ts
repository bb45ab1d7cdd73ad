import { invalidPatch, patchIssues } from './internal/patch-errors.ts'
import type { ComposePatch, Patch } from './patch-schema.ts'
import { PatchSchema } from './patch-schema.ts'

/**
 * What the helpers add to a patch: composition. The method is not enumerable, so the patch stays plain data.
 *
 * @example
 * definePatch(a).andThen(b).andThen(c) // { kind: 'compose', patches: [a, b, c] }
 */
export interface PatchMethods {
  /**
   * This patch, then `next`, as one composition. Named `andThen`, not `then`: an object with a `then`
   * method is a thenable, and `await`ing or returning it from an async function would call it.
   */
  andThen(next: Patch): Composable<ComposePatch>
}

/**
 * A patch made by `definePatch`, `compose` or a kind's helper.
 *
 * @example
 * const fix: Composable<SystemPromptPatch> = systemPromptPatch({ op: 'append', text: 'Be brief.' })
 */
export type Composable<P extends Patch = Patch> = P & PatchMethods

/**
 * Checks a patch written in code and gives it back typed as written, with `andThen`. Throws
 * `E_PATCH_INVALID` (with the path of each bad key) for a patch its schema rejects.
 *
 * @example
 * const fix = definePatch({ kind: 'system_prompt', op: 'append', text: 'Never refund more than the order total.' })
 * const both = fix.andThen({ kind: 'model_params', params: { temperature: 0 } })
 */
export function definePatch<const P extends Patch>(patch: P): Composable<P> {
  const result = PatchSchema.safeParse(patch)
  if (!result.success) throw invalidPatch('the patch given to definePatch', patchIssues(result.error.issues))
  return withMethods(result.data as P)
}

/**
 * Patches applied in order, each to the request the one before produced. Compositions are flattened,
 * so `compose(a, compose(b, c))` is `compose(a, b, c)`.
 *
 * @example
 * const patch = compose(
 *   { kind: 'system_prompt', op: 'append', text: 'Always look the order up first.' },
 *   { kind: 'tool_description', tool: 'issue_refund', op: 'append', text: 'Never above the order total.' },
 * )
 */
export function compose(...patches: Patch[]): Composable<ComposePatch> {
  return definePatch({ kind: 'compose', patches: patches.flatMap(leaves) })
}

/**
 * The single patches of a patch, in the order they apply.
 *
 * @example
 * leaves(compose(a, b)) // [a, b]
 */
export function leaves(patch: Patch): Exclude<Patch, ComposePatch>[] {
  return patch.kind === 'compose' ? patch.patches : [patch]
}

function withMethods<P extends Patch>(patch: P): Composable<P> {
  const andThen: PatchMethods['andThen'] = (next) => compose(patch, next)
  Object.defineProperty(patch, 'andThen', { value: andThen, enumerable: false })
  return patch as Composable<P>
}
