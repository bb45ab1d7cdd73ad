import { spawnSync } from 'node:child_process'
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cassettesOf, copyProject, removeProject, runFixture } from './projects/run-fixture.ts'

// The oldest Vitest that the peer range claims (package.json: `^4.1.0 || ^5.0.0`), with the built
// package as a user installs it. The project (test/projects/vitest-4) gets a node_modules of its own:
// `vitest` is the `vitest-4` devDependency (npm:vitest@4.1.x) and `crashlab` is a copy of dist/ and
// package.json, so that crashlab's own `import 'vitest'` finds 4.1 too (a symlink to this repository
// would find the repository's Vitest). Everything else (openai, msw, zod, vite) resolves from the
// repository's node_modules above the copy. The project has a package.json of its own: inside this
// repository's package, `crashlab` would otherwise resolve to the repository itself.
const ROOT = resolve(import.meta.dirname, '..')
const VITEST_4 = join(ROOT, 'node_modules', 'vitest-4')
const VITEST_4_VERSION = (
  JSON.parse(readFileSync(join(VITEST_4, 'package.json'), 'utf8')) as { version: string }
).version
const FILE = 'weather.spec.js'
// A test file of a TypeScript user, type-checked against Vitest 4.1's types and the package's
// declarations, in a folder outside the repository (whose own type check would pick it up). The
// project itself is JavaScript for the same reason: the repository's type check cannot resolve the
// installed `crashlab` from inside the repository.
const TYPED_SPEC = `import { agentCase, crashTest } from 'crashlab/vitest'
import { expect, test } from 'vitest'

test('typed', agentCase(async (input: string) => input.length, {
  agent: 'typed',
  input: 'x',
  assert: async (run, ctx) => {
    ctx.expect(run).toPassChecks({ minSeverity: 'warn' })
    expect(run).toCallTool('get_forecast', { city: 'Lyon' })
    expect(run).toMatchAgentCase('final', { mode: 'normalized' })
    await expect(run).toReplayExactly()
    // @ts-expect-error: not a matcher (the assertion is not \`any\`)
    expect(run).toBeAnUnknownMatcher()
    // @ts-expect-error: toCostLessThan takes a number
    expect(run).toCostLessThan('cheap')
    await expect(run).toSurvive([{ kind: 'rate_limit' }, { kind: 'gateway_html', status: 503 }], { steps: [0] })
    // @ts-expect-error: not a fault kind
    await expect(run).toSurvive({ kind: 'rate_limt' })
  },
}))
crashTest('typed', async (input: string) => input.length, {
  agent: 'typed',
  input: 'x',
  faults: [{ kind: 'tool_shape_drift' }],
  steps: 'all',
  survive: (run, fault) => run.status === 'ok' && fault.kind !== 'refusal',
})
`
const TSCONFIG = {
  compilerOptions: {
    target: 'ES2023',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noEmit: true,
    // Vitest 4.1's own declarations and crashlab's (written against Vitest 5's) do not check clean
    // together; a project's types do with it, as most projects set it.
    skipLibCheck: true,
    types: ['node'],
    typeRoots: [join(ROOT, 'node_modules', '@types')],
  },
  files: ['typed.ts'],
}

interface Vitest4Run {
  code: number
  output: string
  log: Array<{
    requests: number
    toolRuns: number
    survivals: number
    vitest: string
    vitestOfCrashlab: string
  }>
}

const copies: string[] = []
let dir: string
let record: Vitest4Run
let replay: Vitest4Run

/** A copy of the project with Vitest 4.1 and the built crashlab in its node_modules. */
function installProject(): string {
  const copy = copyProject('vitest-4')
  copies.push(copy)
  const modules = join(copy, 'node_modules')
  mkdirSync(join(modules, 'crashlab'), { recursive: true })
  symlinkSync(VITEST_4, join(modules, 'vitest'), 'dir')
  cpSync(join(ROOT, 'dist'), join(modules, 'crashlab', 'dist'), { recursive: true })
  cpSync(join(ROOT, 'package.json'), join(modules, 'crashlab', 'package.json'))
  return copy
}

/** `vitest run` of the project's own Vitest (4.1), with no CI variable unless `ci`. */
async function runVitest4(cwd: string, options: { ci?: boolean; env?: Record<string, string> } = {}) {
  const bin = join(cwd, 'node_modules', 'vitest', 'vitest.mjs')
  const run = await runFixture(cwd, ['run'], { ...options, vitestBin: bin })
  return run as unknown as Vitest4Run
}

function expectExit(run: Vitest4Run, code: number): void {
  if (run.code !== code) throw new Error(`expected exit ${code}, got ${run.code}:\n${run.output}`)
}

beforeAll(async () => {
  dir = installProject()
  record = await runVitest4(dir)
  expectExit(record, 0)
  replay = await runVitest4(dir, { ci: true })
  expectExit(replay, 0)
}, 120_000)
afterAll(() => {
  for (const copy of copies) removeProject(copy)
})

describe('crashlab on Vitest 4.1', () => {
  it('runs on the Vitest 4.1 of the project, in the test file and in crashlab alike', () => {
    expect(VITEST_4_VERSION).toMatch(/^4\.1\./)
    for (const run of [record, replay]) {
      expect(run.output).toContain(`RUN  v${VITEST_4_VERSION} `)
      expect(run.log).toHaveLength(1)
      expect(run.log[0]).toMatchObject({ vitest: VITEST_4_VERSION, vitestOfCrashlab: VITEST_4_VERSION })
    }
  })

  it('records an OpenAI agent against the scripted provider and writes its baseline', () => {
    expect(record.log[0]).toMatchObject({ requests: 2, toolRuns: 1 })
    expect(cassettesOf(dir, FILE)).toEqual(['forecast for Lyon.agentcase', 'forecast for Lyon.cassette.json'])
    expect(record.output).toMatch(/Snapshots\s+1 written/)
    expect(record.output).toContain(' crashlab  cassettes: 1 recorded · 0 replayed (mode missing)')
    expect(record.output).toMatch(/^ {2}✓ forecast for Lyon\s+\S+\s+3\s/m)
  })

  it('replays it under CI=true with no model call and no tool run, matching the baseline', () => {
    expect(replay.log[0]).toMatchObject({ requests: 0, toolRuns: 0 })
    // The agentCase test and the crash test's one cell, which survived the 429 (the record run has no cell yet).
    expect(replay.output).toMatch(/Tests\s+2 passed \(2\)/)
    expect(replay.log[0]).toMatchObject({ survivals: 1 })
    expect(record.log[0]).toMatchObject({ survivals: 0 })
    expect(replay.output).toContain(' crashlab  cassettes: 0 recorded · 1 replayed (mode replay)')
    expect(replay.output).toMatch(/^ {2}✓ forecast for Lyon\s+\S+\s+3\s/m)
  })

  it('fails a replay whose agent changed, naming the cassette', async () => {
    const changed = copyProject(dir, { withCassettes: true })
    copies.push(changed)
    // The copy's node_modules came along: the same Vitest 4.1 and crashlab.
    const run = await runVitest4(changed, { ci: true, env: { FIXTURE_CITY: 'Oslo' } })
    expectExit(run, 1)
    expect(run.output).toContain('FAIL  weather.spec.js > forecast for Lyon')
    expect(run.output).toContain('forecast for Lyon.cassette.json')
    expect(run.log[0]).toMatchObject({ requests: 0, toolRuns: 0, vitest: VITEST_4_VERSION })
  })

  it("types crashlab's matchers on Vitest 4.1's expect", () => {
    const types = mkdtempSync(join(tmpdir(), 'crashlab-vitest4-types-'))
    try {
      // The project's node_modules, as links: TypeScript follows them to the real Vitest 4.1 and copy.
      mkdirSync(join(types, 'node_modules'))
      for (const name of ['vitest', 'crashlab'])
        symlinkSync(join(dir, 'node_modules', name), join(types, 'node_modules', name), 'dir')
      writeFileSync(join(types, 'package.json'), JSON.stringify({ type: 'module' }))
      writeFileSync(join(types, 'typed.ts'), TYPED_SPEC)
      writeFileSync(join(types, 'tsconfig.json'), JSON.stringify(TSCONFIG))
      const tsc = spawnSync(join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', '.'], {
        cwd: types,
        encoding: 'utf8',
      })
      expect(`${tsc.stdout}${tsc.stderr}`).toBe('')
      expect(tsc.status).toBe(0)
    } finally {
      rmSync(types, { recursive: true, force: true })
    }
  })

  it('leaves `npm test` on the Vitest of the `vitest` devDependency', () => {
    // Both packages declare the `vitest` bin. `npm ci` links the first by path (`vitest`); an `npm
    // install` that adds the alias may link it over the other, and `npm test` would run on 4.1.
    const bin = realpathSync(join(ROOT, 'node_modules', '.bin', 'vitest'))
    expect(bin, 'node_modules/.bin/vitest is Vitest 4.1: run `npm ci`').toBe(
      join(realpathSync(join(ROOT, 'node_modules', 'vitest')), 'vitest.mjs'),
    )
  })

  it('prints no source map warning for the installed package', () => {
    for (const run of [record, replay]) expect(run.output).not.toMatch(/sourcemap/i)
  })
})
