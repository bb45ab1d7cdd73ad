import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

// docs/architecture.md is the map of the code: its layer table says which component may import which,
// and its owner table names the one file that owns each concern. This test holds the code to it, so the
// doc cannot drift from the code.
const ROOT = join(import.meta.dirname, '..')
const DOC = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8')
const VITEST_SIDE = ['fixtures', 'matchers', 'plugin']
/**
 * The core's entries: the public one (`crashlab`), the Vitest side's undocumented superset, and what the
 * Vitest side loads with `import()` when it first needs it.
 */
const ENTRIES = ['index.ts', 'internal.ts', 'on-demand.ts']

/** The rows of the markdown table that follows `heading`, as arrays of cells. */
function tableAfter(heading: string): string[][] {
  const start = DOC.indexOf(`\n## ${heading}\n`)
  if (start === -1) throw new Error(`docs/architecture.md has no "## ${heading}" section`)
  const section = DOC.slice(start + 1).split('\n## ')[0] as string
  return section
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|\s*-/.test(line))
    .slice(1)
    .map((line) =>
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim()),
    )
}

const LAYERS = new Map<string, number>(
  tableAfter('Dependency direction').flatMap(([layer, names]) =>
    (names ?? '').split(',').map((name) => [name.trim(), Number(layer)] as const),
  ),
)

/** The component a repository path belongs to: `src/<folder>`'s folder, a Vitest-side folder, or the core root. */
function componentOf(path: string): string | undefined {
  const parts = path.split('/')
  if (parts[0] === 'src') {
    if (parts.length === 2) return ENTRIES.includes(parts[1] as string) ? 'entry' : 'root'
    return parts[1]
  }
  return VITEST_SIDE.includes(parts[0] as string) ? parts[0] : undefined
}

function layerOf(component: string): number | undefined {
  if (component === 'root') return 0
  // The core entry sits above every core component and below the Vitest side.
  if (component === 'entry') return 13.5
  return LAYERS.get(component)
}

/** The TypeScript files under `dir` but tests, and but test helpers (`test-*.ts`) unless `helpers`. */
function sources(dir: string, helpers: boolean): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name)
    if (e.isDirectory()) return sources(path, helpers)
    const wanted =
      e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && (helpers || !e.name.startsWith('test-'))
    return wanted ? [path] : []
  })
}

/** Every relative import of the non-test code (and of test helpers, with `helpers`), as repository paths: [importer, imported]. */
function imports(helpers = false): Array<[string, string]> {
  return ['src', ...VITEST_SIDE].flatMap((top) =>
    sources(join(ROOT, top), helpers).flatMap((file) => {
      const text = readFileSync(file, 'utf8')
      return [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g)].map(
        (m) =>
          [relative(ROOT, file), relative(ROOT, resolve(dirname(file), m[1] as string))] as [string, string],
      )
    }),
  )
}

describe('docs/architecture.md holds for the code', () => {
  it('places every component in exactly one layer', () => {
    const components = [
      ...readdirSync(join(ROOT, 'src'), { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => e.name),
      ...VITEST_SIDE,
    ].sort()
    const listed = tableAfter('Dependency direction').flatMap(([, names]) =>
      (names ?? '').split(',').map((n) => n.trim()),
    )
    expect(listed.length, 'a component is listed twice').toBe(new Set(listed).size)
    expect([...listed].sort()).toEqual(components)
  })

  it('imports run one way: a component imports only components of a lower layer', () => {
    const offenders = imports().flatMap(([from, to]) => {
      const a = componentOf(from)
      const b = componentOf(to)
      if (a === undefined || b === undefined || a === b) return []
      const la = layerOf(a)
      const lb = layerOf(b)
      if (la === undefined || lb === undefined) return [`${from} -> ${to} (a component with no layer)`]
      return lb < la ? [] : [`${from} (layer ${la}) -> ${to} (layer ${lb})`]
    })
    expect(offenders).toEqual([])
  })

  it("keeps each component's internal/ to itself: no other component's code or test helpers import it", () => {
    const offenders = imports(true).filter(([from, to]) => {
      const owner = componentOf(to)
      return to.split('/').includes('internal') && owner !== undefined && owner !== componentOf(from)
    })
    expect(offenders.map(([from, to]) => `${from} -> ${to}`)).toEqual([])
  })

  it('names an owner file for each core concern, and each one exists', () => {
    const owners = new Map(tableAfter('Who owns what').map(([concern, file]) => [concern, file]))
    for (const concern of [
      'stream replay',
      'the record-mode decision',
      'cassette paths',
      'baseline paths',
      'the circuit breaker',
      'the verify verdict rule',
      'the failed-tool-call definition',
    ]) {
      expect(owners.get(concern), concern).toBeDefined()
    }
    const missing = [...owners]
      .map(([concern, file]) => [concern, (file ?? '').replaceAll('`', '')] as const)
      .filter(([, file]) => !existsSync(join(ROOT, file)))
    expect(missing).toEqual([])
  })

  it('loads zod only on first use (src/lazy-zod.ts): no module imports its values', () => {
    const staticImport = /^\s*import\s+(?!type\b)[^'"]*\bfrom\s+['"]zod(?:\/[^'"]*)?['"]/m
    const offenders = ['src', ...VITEST_SIDE].flatMap((top) =>
      sources(join(ROOT, top), false)
        .filter((file) => staticImport.test(readFileSync(file, 'utf8')))
        .map((file) => relative(ROOT, file)),
    )
    expect(offenders).toEqual([])
  })
})

/** The names an entry lists in its `export { … }` statements, split into values and types. */
function listedNames(file: string): { values: string[]; types: string[] } {
  const text = readFileSync(join(ROOT, file), 'utf8')
  const values: string[] = []
  const types: string[] = []
  for (const m of text.matchAll(/export\s+(type\s+)?\{([^}]*)\}/g)) {
    for (const raw of (m[2] as string).split(',')) {
      const item = raw.trim()
      if (item === '') continue
      const isType = m[1] !== undefined || item.startsWith('type ')
      const name = item
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .at(-1) as string
      ;(isType ? types : values).push(name)
    }
  }
  for (const m of text.matchAll(/export\s+(const|function|class|interface|type)\s+([A-Za-z_$][\w$]*)/g)) {
    ;(m[1] === 'interface' || m[1] === 'type' ? types : values).push(m[2] as string)
  }
  return { values, types }
}

/** The package's entries: subpath → the source file its `default` condition is built from. */
function packageEntries(): Map<string, string> {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { default: string }>
  }
  return new Map(
    Object.entries(pkg.exports)
      .filter(([, target]) => typeof target !== 'string')
      .map(([subpath, target]) => [
        subpath === '.' ? 'crashlab' : `crashlab/${subpath.slice(2)}`,
        (target as { default: string }).default.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts'),
      ]),
  )
}

describe('the public API', () => {
  const entries = packageEntries()

  it('lists every name of each package entry explicitly, with no `export *`', () => {
    expect([...entries.keys()]).toEqual([
      'crashlab',
      'crashlab/vitest',
      'crashlab/tasks',
      'crashlab/testing',
      'crashlab/otel',
    ])
    for (const [name, file] of entries) {
      expect(readFileSync(join(ROOT, file), 'utf8'), `${name} (${file})`).not.toMatch(/export\s+(type\s+)?\*/)
    }
    expect([...entries.values()]).not.toContain('src/internal.ts')
  })

  it('keeps the core entry to at most 100 runtime names, exactly the ones it lists', async () => {
    const core = await import('../src/index.ts')
    const runtime = Object.keys(core).sort()
    expect(runtime.length).toBeLessThanOrEqual(100)
    expect(runtime).toEqual([...listedNames('src/index.ts').values].sort())
  })

  it('has the Vitest side reach the core only through its entries, never a component directly', () => {
    const offenders = imports(true).filter(([from, to]) => {
      const side = componentOf(from)
      return (
        side !== undefined &&
        VITEST_SIDE.includes(side) &&
        to.startsWith('src/') &&
        componentOf(to) !== 'entry'
      )
    })
    expect(offenders.map(([from, to]) => `${from} -> ${to}`)).toEqual([])
  })

  it('exports every name the docs import from a package entry', () => {
    const docs = [
      'README.md',
      ...['docs', 'plugin', 'matchers', 'fixtures', 'bench', 'examples/integrations'].flatMap((dir) =>
        readdirSync(join(ROOT, dir))
          .filter((f) => f.endsWith('.md'))
          .map((f) => `${dir}/${f}`),
      ),
    ]
    const missing: string[] = []
    let checked = 0
    for (const doc of docs) {
      const text = readFileSync(join(ROOT, doc), 'utf8')
      for (const m of text.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'(crashlab(?:\/[a-z]+)?)'/g)) {
        const file = entries.get(m[2] as string)
        if (file === undefined) {
          missing.push(`${doc}: no entry '${m[2]}'`)
          continue
        }
        const { values, types } = listedNames(file)
        for (const raw of (m[1] as string).split(',')) {
          const name = raw
            .trim()
            .replace(/^type\s+/, '')
            .split(/\s+as\s+/)[0] as string
          if (name === '') continue
          checked++
          if (!values.includes(name) && !types.includes(name)) missing.push(`${doc}: ${name} from '${m[2]}'`)
        }
      }
    }
    expect(checked).toBeGreaterThan(50)
    expect(missing).toEqual([])
  })
})

describe('the held-out diagnoser set (src/diagnose-bench/heldout/)', () => {
  const HELDOUT = 'src/diagnose-bench/heldout/'
  /** Every file `start` reaches through relative imports, tests included, as repository paths. */
  function reach(start: readonly string[]): Set<string> {
    const seen = new Set<string>()
    const queue = [...start]
    while (queue.length > 0) {
      const path = queue.pop() as string
      if (seen.has(path)) continue
      seen.add(path)
      const text = readFileSync(join(ROOT, path), 'utf8')
      for (const m of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) {
        const target = relative(ROOT, resolve(dirname(join(ROOT, path)), m[1] as string))
        if (existsSync(join(ROOT, target)) && target.endsWith('.ts')) queue.push(target)
      }
    }
    return seen
  }
  const allTs = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? allTs(`${dir}/${e.name}`) : e.name.endsWith('.ts') ? [`${dir}/${e.name}`] : [],
    )

  it('is never read by the heuristic, the fixer or their tests, directly or through another module', () => {
    const roots = [...allTs('src/diagnose'), ...allTs('src/fix')]
    expect(roots.filter((f) => f.endsWith('.test.ts')).length).toBeGreaterThan(3)
    const reached = [...reach(roots)].filter((f) => f.startsWith(HELDOUT))
    expect(reached).toEqual([])
  })

  it('is reached by the bench command, which reports it (the walk above does find it where it is imported)', () => {
    const reached = [...reach(['src/cli/commands/bench.ts'])]
    expect(reached).toContain(`${HELDOUT}faults.ts`)
    expect(reached.filter((f) => f.startsWith(`${HELDOUT}agents/`)).length).toBeGreaterThanOrEqual(5)
  })

  it('is not re-exported by the bench index, which the heuristic tests could otherwise reach', () => {
    expect([...reach(['src/diagnose-bench/index.ts'])].filter((f) => f.startsWith(HELDOUT))).toEqual([])
  })
})
