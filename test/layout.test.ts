import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

// The core (src/) runs in a production process and in the CLI, where Vitest is not installed: it never
// imports Vitest, nor the Vitest side (plugin/, matchers/, fixtures/). Tests and test-only helpers are
// the exception (they run under Vitest).
const ROOT = join(import.meta.dirname, '..')

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name)
    if (e.isDirectory()) return sources(path)
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.startsWith('test-') ? [path] : []
  })
}

describe('layout', () => {
  it('src/ imports nothing from Vitest or from the Vitest side', () => {
    const offenders = sources(join(ROOT, 'src')).flatMap((file) => {
      const text = readFileSync(file, 'utf8')
      const imports = [...text.matchAll(/^\s*(?:import|export)[^'"]*from\s+['"]([^'"]+)['"]/gm)].map(
        (m) => m[1],
      )
      return imports
        .filter(
          (spec) => spec !== undefined && /^(vitest|@vitest\/)|\/(plugin|matchers|fixtures)\//.test(spec),
        )
        .map((spec) => `${relative(ROOT, file)}: ${spec}`)
    })
    expect(offenders).toEqual([])
  })
})
