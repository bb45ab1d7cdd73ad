import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  freshProject,
  type ModuleTally,
  modulesOf,
  OUT,
  ownBytes,
  ownSourceModules,
  processModules,
  tallyModules,
  workerModules,
  writeSuite,
} from '../bench/internal/startup-project.ts'

// What a user's process loads from crashlab, counted (a count is stable where a time is not) on the
// built package installed in a fresh project (test/global-setup.ts builds dist/). The figures and the
// goals are in bench/README.md ("Start-up"); `node bench/startup.bench.ts` prints them.

/**
 * Dependencies that only some work needs: no entry may load them when it is imported, nor a Vitest
 * worker whose tests touch no cassette (zod loads with the first schema used, src/lazy-zod.ts).
 */
const LOADED_WHEN_USED = ['zod', 'yaml', 'ajv', 'jiti', '@pydantic/genai-prices']

let dir: string
let nothing: Set<string>
let vitestOnly: Set<string>
const tallies = new Map<string, ModuleTally>()

function tallyOf(entry: string): ModuleTally {
  const cached = tallies.get(entry)
  if (cached) return cached
  const baseline = ['crashlab', 'crashlab/testing', 'crashlab/otel'].includes(entry) ? nothing : vitestOnly
  const tally = tallyModules(modulesOf(dir, `await import('${entry}')`), baseline)
  tallies.set(entry, tally)
  return tally
}

beforeAll(() => {
  dir = freshProject(`modules-test-${process.pid}`)
  nothing = new Set(modulesOf(dir, '0'))
  vitestOnly = new Set(modulesOf(dir, "await import('vitest')"))
}, 60_000)

afterAll(() => {
  for (const name of ['modules-test', 'worker-none', 'worker-plugin', 'worker-config'])
    rmSync(join(OUT, `${name}-${process.pid}`), { recursive: true, force: true })
})

describe('modules loaded at start-up', () => {
  it.each(['crashlab', 'crashlab/vitest', 'crashlab/tasks', 'crashlab/testing', 'crashlab/otel'])(
    'import(%s) loads crashlab as a few bundled files, and none of the dependencies kept for later',
    (entry) => {
      const tally = tallyOf(entry)
      // Unbundled, crashlab/vitest was 384 of crashlab's own files.
      expect(tally.own).toBeGreaterThan(0)
      expect(tally.own).toBeLessThanOrEqual(25)
      for (const pkg of LOADED_WHEN_USED)
        expect(tally.packages.get(pkg), `${entry} loads ${pkg}`).toBeUndefined()
    },
  )

  it('a Vitest worker with the plugin and a test file importing crashlab/vitest loads at most 150 modules of crashlab and its dependencies', () => {
    const bare = new Set(workerModules(writeSuite('none', 1, { name: `worker-none-${process.pid}` })))
    const withPlugin = workerModules(
      writeSuite('plugin', 1, { name: `worker-plugin-${process.pid}`, importPlugin: true }),
    )
    const tally = tallyModules(withPlugin, bare)
    // 678 before the bundled build, 169 bundled with zod (95 modules) loaded by the setup file.
    expect(tally.total).toBeGreaterThan(40)
    expect(tally.total).toBeLessThanOrEqual(150)
    for (const pkg of LOADED_WHEN_USED)
      expect(tally.packages.get(pkg), `the worker loads ${pkg}`).toBeUndefined()
    // The components a trivial test never uses load with `import()` when used (src/on-demand.ts). Bundled
    // by esbuild, whose chunks follow files rather than the imports used, the worker held 56 modules of
    // them, and 783 KB of crashlab's code in all.
    const modules = ownSourceModules(withPlugin)
    expect(modules).toContain('src/interceptor/crashlab-handlers.ts')
    expect(modules.filter((m) => /^src\/(diagnose|fix|verify|report|store|patches)\//.test(m))).toEqual([])
    expect(ownBytes(withPlugin)).toBeLessThanOrEqual(550_000)
  }, 120_000)

  it('a worker of a project with a crashlab.config.ts holding checks loads neither jiti nor zod for it', () => {
    const project = writeSuite('plugin', 1, { name: `worker-config-${process.pid}`, importPlugin: true })
    writeFileSync(
      join(project, 'crashlab.config.ts'),
      'const maxSteps: number = 10\nexport default { checks: { maxSteps, stepRepetition: { threshold: 4 } } }\n',
    )
    const tally = tallyModules(workerModules(project))
    // Before: jiti and Babel compiled the file in every worker (0.32 s each here), and zod (95
    // modules) validated it and the checks layered from it, which the plugin had validated already.
    expect(tally.own).toBeGreaterThan(0)
    expect(tally.packages.get('jiti'), 'the worker loads jiti').toBeUndefined()
    expect(tally.packages.get('zod'), 'the worker loads zod').toBeUndefined()
    rmSync(project, { recursive: true, force: true })
  }, 120_000)

  it('Node loads a TypeScript config file itself, and jiti only one that Node cannot strip (an enum)', () => {
    writeFileSync(
      join(dir, 'plain.config.ts'),
      'const n: number = 3\nexport default { checks: { maxSteps: n } }\n',
    )
    writeFileSync(
      join(dir, 'enum.config.ts'),
      'enum Limit { Steps = 3 }\nexport default { checks: { maxSteps: Limit.Steps } }\n',
    )
    const load = (file: string) =>
      tallyModules(
        modulesOf(
          dir,
          `const { loadConfig } = await import('crashlab'); const { config } = await loadConfig({ file: '${file}' }); if (config.checks?.maxSteps !== 3) throw new Error('wrong config')`,
        ),
      )
    expect(load('plain.config.ts').packages.get('jiti')).toBeUndefined()
    expect(load('enum.config.ts').packages.get('jiti')).toBeGreaterThan(0)
  }, 60_000)

  it('the Vitest config process, which imports crashlab/vitest for the plugin, loads no msw and no zod', () => {
    const urls = modulesOf(
      dir,
      "const { crashlab } = await import('crashlab/vitest'); crashlab({ cassetteDir: '__cassettes__' })",
    )
    const tally = tallyModules(urls, vitestOnly)
    // Before: msw and its interceptors (40 modules, about 150 ms) and zod (the plugin options' schema).
    expect(tally.own).toBeGreaterThan(0)
    for (const pkg of ['msw', '@mswjs/interceptors', ...LOADED_WHEN_USED])
      expect(tally.packages.get(pkg), `the config process loads ${pkg}`).toBeUndefined()
  }, 60_000)

  it('crashlab ls of a store that exists reads its index alone: at most 100 KB of crashlab, no zod', () => {
    const bin = join(dir, 'node_modules', 'crashlab', 'dist', 'src', 'cli', 'bin.js')
    const env = { CRASHLAB_DIR: join(dir, '.crashlab-ls') }
    processModules(dir, [bin, 'ls'], env) // creates the store
    const urls = processModules(dir, [bin, 'ls'], env)
    // 268 KB before: the full store, with cassette reading and writing and the redactor.
    expect(ownBytes(urls)).toBeGreaterThan(10_000)
    expect(ownBytes(urls)).toBeLessThanOrEqual(100_000)
    expect(tallyModules(urls).packages.get('zod')).toBeUndefined()
  }, 60_000)

  it.each([
    ['--version', []],
    ['ls', ['picocolors']],
  ])(
    'crashlab %s loads no built-in through an ES import (its facade reads every export), and of the dependencies only %j',
    (command, dependencies) => {
      const bin = join(dir, 'node_modules', 'crashlab', 'dist', 'src', 'cli', 'bin.js')
      const env = { CRASHLAB_DIR: join(dir, '.crashlab-ls') }
      processModules(dir, [bin, 'ls'], env) // creates the store
      const urls = processModules(dir, [bin, command], env)
      // Before: citty (and through it the ES facade of node:util), node:fs, node:path, node:url, node:module.
      expect(urls.filter((url) => url.startsWith('node:'))).toEqual([])
      expect([...tallyModules(urls).packages.keys()]).toEqual(dependencies)
    },
    60_000,
  )
})
