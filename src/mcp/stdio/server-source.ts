import { createHash } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import { dirname, extname, isAbsolute, relative, resolve } from 'node:path'
import type { StdioServer } from './types.ts'

/** What counts as a server's source file: its entry, and what it imports by a relative path. */
const SOURCE_EXTENSIONS = ['.js', '.mjs', '.cjs', '.ts', '.mts', '.cts', '.jsx', '.tsx', '.py']
/** The most files read for one server: a server that imports more is digested by its first ones. */
const MAX_FILES = 300
/** Relative specifiers in `import … from`, `export … from`, `import(…)`, `require(…)` and bare `import '…'`. */
const RELATIVE_IMPORT =
  /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"\n]+)\1/g

/**
 * A digest of a stdio MCP server's own source, when it is local code: the files among its arguments that
 * are source files (`node servers/orders.mjs`, `tsx server.ts`, `python server.py`), and, for JavaScript
 * and TypeScript, every file they import by a relative path, transitively. `sha256:` and 16 hex
 * characters, or undefined for a server with no local source (`npx -y @scope/server`, a binary). The
 * recording keeps it, so a replay can tell that the server's code changed since (`stdio-sessions.ts`).
 *
 * @example
 * serverSourceDigest({ command: 'node', args: ['servers/orders.mjs'] }) // 'sha256:3f9a…'
 */
export function serverSourceDigest(server: StdioServer): string | undefined {
  const base = server.cwd ?? process.cwd()
  const entries = server.args
    .filter((arg) => SOURCE_EXTENSIONS.includes(extname(arg)))
    .map((arg) => (isAbsolute(arg) ? arg : resolve(base, arg)))
    .filter(isFile)
  if (entries.length === 0) return undefined
  const seen = new Set<string>()
  const queue = [...entries]
  const hash = createHash('sha256')
  while (queue.length > 0 && seen.size < MAX_FILES) {
    const file = queue.shift() as string
    if (seen.has(file)) continue
    seen.add(file)
    const text = readFileSync(file, 'utf8')
    hash.update(`${relative(base, file)}\0${text}\0`)
    if (extname(file) === '.py') continue
    for (const match of text.matchAll(RELATIVE_IMPORT)) {
      const found = resolveImport(dirname(file), match[2] as string)
      if (found !== undefined && !seen.has(found)) queue.push(found)
    }
  }
  return `sha256:${hash.digest('hex').slice(0, 16)}`
}

/** A relative import as Node or a TypeScript loader finds it: as written, `.js` written for `.ts`, or with an extension or `/index` added. */
function resolveImport(from: string, specifier: string): string | undefined {
  const path = resolve(from, specifier)
  const ext = extname(path)
  const candidates = [path]
  if (ext === '.js' || ext === '.mjs' || ext === '.cjs')
    candidates.push(`${path.slice(0, -ext.length)}${ext.replace('j', 't')}`)
  if (!SOURCE_EXTENSIONS.includes(ext))
    for (const e of SOURCE_EXTENSIONS) candidates.push(`${path}${e}`, resolve(path, `index${e}`))
  return candidates.find(isFile)
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile()
  } catch {
    return false
  }
}
