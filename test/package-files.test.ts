import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join, posix, resolve } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'

// What `npm publish` would ship, read from `npm pack --dry-run` over dist/ (test/global-setup.ts builds
// it). The policy is in docs/architecture.md ("Packaging"): no source maps, so no map may name a source
// file that the package does not hold (Vite warns about each one, and stack traces would name it).
const ROOT = resolve(import.meta.dirname, '..')
const SOURCE_MAP_COMMENT = /^\s*\/\/[#@] sourceMappingURL=(\S+)\s*$/m
let files: string[]

beforeAll(() => {
  // --ignore-scripts: `prepare` would rebuild dist/ (rm -rf) under the other tests that read it.
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const packed = JSON.parse(out) as Array<{ files: Array<{ path: string }> }>
  files = packed[0]?.files.map((f) => f.path) ?? []
}, 60_000)

/** The sources a map names that neither the package holds nor the map inlines. */
function missingSources(mapPath: string, map: { sources?: string[]; sourcesContent?: unknown[] }): string[] {
  const packed = new Set(files)
  return (map.sources ?? []).filter((source, i) => {
    if (typeof map.sourcesContent?.[i] === 'string') return false
    return !packed.has(posix.normalize(posix.join(posix.dirname(mapPath), source)))
  })
}

describe('the published package', () => {
  it('holds the built entry points', () => {
    // A guard for the checks below: an empty or failed listing would pass them.
    expect(files).toContain('package.json')
    expect(files).toContain('dist/src/index.js')
    expect(files).toContain('dist/plugin/setup.js')
  })

  it('ships no source map file', () => {
    const maps = files.filter((f) => f.endsWith('.map'))
    // A stale dist/ keeps maps of an earlier build: `npm run build` starts from an empty dist/.
    expect(maps, 'source maps in the package (stale dist/? run `npm run build`)').toEqual([])
  })

  it('has no file whose source map comment leads to a missing map or a missing source', () => {
    const broken: string[] = []
    for (const file of files.filter((f) => /\.(c|m)?(js|ts)$/.test(f))) {
      const url = SOURCE_MAP_COMMENT.exec(readFileSync(join(ROOT, file), 'utf8'))?.[1]
      if (url === undefined) continue
      if (url.startsWith('data:')) {
        const map = JSON.parse(Buffer.from(url.slice(url.indexOf(',') + 1), 'base64').toString('utf8'))
        for (const source of missingSources(file, map)) broken.push(`${file}: inline map names ${source}`)
        continue
      }
      const mapPath = posix.normalize(posix.join(posix.dirname(file), url))
      if (!files.includes(mapPath) || !existsSync(join(ROOT, mapPath))) {
        broken.push(`${file}: names ${mapPath}, which the package does not hold`)
        continue
      }
      const map = JSON.parse(readFileSync(join(ROOT, mapPath), 'utf8'))
      for (const source of missingSources(mapPath, map)) broken.push(`${file}: ${mapPath} names ${source}`)
    }
    expect(broken.slice(0, 5), `${broken.length} files lead to missing sources`).toEqual([])
  })

  it('has no source map comment at all (the policy: no maps)', () => {
    const withComment = files.filter(
      (f) => /\.(c|m)?js$/.test(f) && SOURCE_MAP_COMMENT.test(readFileSync(join(ROOT, f), 'utf8')),
    )
    expect(withComment.slice(0, 5), `${withComment.length} files with a sourceMappingURL`).toEqual([])
  })
})
