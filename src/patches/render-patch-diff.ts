import type { NormalizedRequest } from '../case/schema/normalized.ts'
import { type ApplyPatchOptions, applyPatch } from './apply-patch.ts'
import { leaves } from './define-patch.ts'
import { type DiffLine, diffLines, hunks } from './internal/line-diff.ts'
import { renderRequest } from './internal/render-request.ts'
import { isTestOnlyPatch } from './patch-kinds.ts'
import type { LeafPatch, Patch } from './patch-schema.ts'

/**
 * Options of `renderPatchDiff`: those of `applyPatch`, and the kept lines around each change.
 *
 * @example
 * renderPatchDiff(patch, request, { step: 4, context: 1 })
 */
export interface RenderPatchDiffOptions extends ApplyPatchOptions {
  /** Unchanged lines shown around each change (3, as `diff -u`). */
  context?: number
}

/**
 * What a patch would change in a request, as a unified diff of the request's fields as people read
 * them (`params`, `system`, `messages`, `tools`), after one `#` line per single patch. Each hunk header
 * names where it is (`@@ -3,4 +3,5 @@ messages[2] assistant`). A patch that changes nothing says why.
 * Deterministic, for `crashlab fork --dry-run` and snapshots.
 *
 * @example
 * console.log(renderPatchDiff({ kind: 'tool_description', tool: 'get_order', op: 'append', text: 'Ids look like A17.' }, request))
 * // # tool_description append get_order
 * // --- a/tools
 * // +++ b/tools
 * // @@ -1,3 +1,4 @@ tools.get_order
 * // …
 */
export function renderPatchDiff(
  patch: Patch,
  request: NormalizedRequest,
  options: RenderPatchDiffOptions = {},
): string {
  const { request: after, changed, missing } = applyPatch(patch, request, { ...options, strict: false })
  const out = leaves(patch).map(summary)
  if (isTestOnlyPatch(patch)) out.push('# test-only: a counterfactual tool result, never a fix')
  if (!changed) {
    const why =
      missing.length > 0 ? missing : ["the request is out of the patch's scope, or already says this"]
    out.push(...why.map((m) => `# no change: ${m}`))
    return out.join('\n')
  }
  for (const m of missing) out.push(`# not applied: ${m}`)
  const before = renderRequest(request)
  const next = renderRequest(after)
  for (const [i, a] of before.entries()) {
    const b = next[i]!
    const diff = diffLines(a.lines, b.lines)
    const found = hunks(diff, options.context ?? 3)
    if (found.length === 0) continue
    out.push(`--- a/${a.name}`, `+++ b/${b.name}`)
    for (const hunk of found) {
      const label = labelOf(hunk.lines, a.labels, b.labels)
      out.push(label ? `${hunk.header} ${label}` : hunk.header, ...hunk.lines.map((d) => `${d.op}${d.text}`))
    }
  }
  return out.join('\n')
}

/** The label of a hunk's first changed line: where it is in the patched request, or was in the original. */
function labelOf(lines: readonly DiffLine[], a: readonly string[], b: readonly string[]): string {
  const first = lines.find((d) => d.op !== ' ')
  if (!first) return ''
  return (first.b !== undefined ? b[first.b] : a[first.a ?? -1]) ?? ''
}

function summary(leaf: LeafPatch): string {
  const op = 'op' in leaf ? ` ${leaf.op}` : ''
  const tool = 'tool' in leaf && leaf.tool !== undefined ? ` ${leaf.tool}` : ''
  const when = leaf.when ? ` when ${JSON.stringify(leaf.when)}` : ''
  return `# ${leaf.kind}${op}${tool}${when}`
}
