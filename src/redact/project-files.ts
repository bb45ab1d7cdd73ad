import { readdir } from 'node:fs/promises'
import { join } from 'node:path'

/** Dependencies and hidden folders are not ours to read, except crashlab's own store. */
function skipDir(name: string): boolean {
  return name === 'node_modules' || (name.startsWith('.') && name !== '.crashlab')
}

/**
 * The files below `root` whose name matches `wanted`, in a stable (code point) order, skipping
 * `node_modules` and hidden folders other than `.crashlab`. Symlinked folders are not followed: a link
 * back up the tree would loop forever. Shared by `crashlab scan` and `crashlab redact`, which must
 * look at the same files.
 *
 * @example
 * const files: string[] = []
 * await collectProjectFiles('__cassettes__', /\.(?:json|agentcase)$/i, files)
 */
export async function collectProjectFiles(root: string, wanted: RegExp, out: string[]): Promise<void> {
  const entries = await readdir(root, { withFileTypes: true })
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  for (const e of entries) {
    const path = join(root, e.name)
    if (e.isDirectory()) {
      if (!skipDir(e.name)) await collectProjectFiles(path, wanted, out)
    } else if (e.isFile() && wanted.test(e.name)) out.push(path)
  }
}
