import { createRequire } from 'node:module'
import { CrashlabError } from '../errors.ts'
import { DOCS, invalidPatch, patchIssues } from './internal/patch-errors.ts'
import { type Patch, PatchSchema } from './patch-schema.ts'

const require = createRequire(import.meta.url)
let yamlModule: typeof import('yaml') | undefined

/** The YAML parser, loaded on the first YAML patch (it is 70-odd modules; JSON patches never need it). */
function yaml(): typeof import('yaml') {
  yamlModule ??= require('yaml') as typeof import('yaml')
  return yamlModule
}

/**
 * Reads a patch: an object (a fix proposal's `patch`, a config value) or the text of a patch file, JSON
 * or YAML. Throws `E_PATCH_INVALID` naming `source` and the path of every bad key (`$.patches[1].op`).
 *
 * @example
 * const patch = parsePatch(await readFile('fix.yaml', 'utf8'), 'fix.yaml')
 * parsePatch({ kind: 'model_params', params: { temperature: 0 } })
 */
export function parsePatch(input: unknown, source = 'the patch'): Patch {
  const value = typeof input === 'string' ? readText(input, source) : input
  const result = PatchSchema.safeParse(value)
  if (result.success) return result.data
  throw invalidPatch(source, patchIssues(result.error.issues))
}

/**
 * Writes a patch as a patch file: pretty JSON, or YAML (multi-line prompts as block scalars). Only the
 * data is written, never helper methods; `parsePatch` of the text gives the patch back.
 *
 * @example
 * await writeFile('fix.yaml', serializePatch(patch, 'yaml'))
 */
export function serializePatch(patch: Patch, format: 'json' | 'yaml' = 'json'): string {
  const result = PatchSchema.safeParse(patch)
  if (!result.success) throw invalidPatch('the patch to serialize', patchIssues(result.error.issues))
  if (format === 'yaml') return yaml().stringify(result.data, { lineWidth: 0 })
  return `${JSON.stringify(result.data, null, 2)}\n`
}

function readText(text: string, source: string): unknown {
  const trimmed = text.trimStart()
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return JSON.parse(text)
    } catch (err) {
      // `{kind: message, …}` is a YAML flow mapping, not broken JSON: YAML gets its turn.
      const doc = yaml().parseDocument(text, { uniqueKeys: true })
      if (doc.errors.length === 0) return doc.toJS()
      throw new CrashlabError(
        'E_PATCH_INVALID',
        `${source} is not valid JSON (${(err as Error).message}): fix the syntax; ${DOCS}`,
        { cause: err, subject: source },
      )
    }
  }
  const doc = yaml().parseDocument(text, { prettyErrors: true, uniqueKeys: true })
  const [first] = doc.errors
  if (first) {
    throw new CrashlabError(
      'E_PATCH_INVALID',
      `${source} is not valid YAML: ${first.message.trimEnd()}\nFix the syntax; ${DOCS}`,
      { cause: first, subject: source },
    )
  }
  return doc.toJS()
}
