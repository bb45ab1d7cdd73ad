/**
 * What crashlab costs at start-up, measured as a user meets it (the built package installed in a fresh
 * project; `npm run build` first):
 *   1. the modules each entry loads, crashlab's own and its dependencies' (Node's built-ins and, for
 *      entries that import Vitest, Vitest's own left out), and what one Vitest worker loads for the
 *      plugin's setup file plus a test file importing `crashlab/vitest`, over a worker with no setup;
 *   2. a CPU profile of importing each entry: where the time goes, by package;
 *   3. a suite of 20 trivial test files under `CI=true`: no setup, a bare msw `setupServer` setup file,
 *      `plugins: [crashlab()]`, and the plugin with one `agentCase` replay per file. Goals: the plugin
 *      ≤ 1.2× bare msw, with a replay per file ≤ 1.3×;
 *   4. `crashlab --version` and `crashlab ls` (a store of 20 runs) as processes against `node -e 0` plus
 *      opening the store's SQLite index. Goal ≤ 1.5×.
 *
 *   node bench/startup.bench.ts            (ROUNDS=3 suite runs per setup, FILES=20, CLI_ROUNDS=15)
 *   ONLY=modules node bench/startup.bench.ts   (or ONLY=profile, ONLY=suite, ONLY=cli)
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { median } from './internal/measure.ts'
import {
  freshProject,
  type ModuleTally,
  modulesOf,
  runVitest,
  runVitestAsync,
  type SuiteVariant,
  tallyModules,
  workerModules,
  writeSuite,
} from './internal/startup-project.ts'

const ROUNDS = Number(process.env.ROUNDS ?? 3)
const FILES = Number(process.env.FILES ?? 20)
const CLI_ROUNDS = Number(process.env.CLI_ROUNDS ?? 15)
const ONLY = process.env.ONLY
const ENTRIES = ['crashlab', 'crashlab/vitest', 'crashlab/tasks', 'crashlab/testing'] as const
/** Entries whose modules include Vitest's (the matchers import `expect`): Vitest's own are left out. */
const USES_VITEST = new Set<string>(['crashlab/vitest', 'crashlab/tasks'])

function describeTally(label: string, t: ModuleTally): string {
  const deps = [...t.packages].sort((a, b) => b[1] - a[1])
  const depCount = deps.reduce((n, [, c]) => n + c, 0)
  const top = deps
    .slice(0, 8)
    .map(([p, c]) => `${p} ${c}`)
    .join(', ')
  return `${label.padEnd(34)} ${String(t.total).padStart(5)} ${String(t.own).padStart(6)} ${String(depCount).padStart(5)}   ${top}`
}

function moduleSection(): void {
  console.log('\n## Modules loaded (not counting node: built-ins)\n')
  console.log(
    `${'entry'.padEnd(34)} ${'total'.padStart(5)} ${'own'.padStart(6)} ${'deps'.padStart(5)}   largest dependencies`,
  )
  const dir = freshProject('entries')
  const nothing = new Set(modulesOf(dir, '0'))
  const vitest = new Set(modulesOf(dir, "await import('vitest')"))
  for (const entry of ENTRIES) {
    const urls = modulesOf(dir, `await import('${entry}')`)
    console.log(
      describeTally(`import('${entry}')`, tallyModules(urls, USES_VITEST.has(entry) ? vitest : nothing)),
    )
  }
  const bare = new Set(workerModules(writeSuite('none', 1, { name: 'worker-none' })))
  const plugin = workerModules(writeSuite('plugin', 1, { name: 'worker-plugin', importPlugin: true }))
  console.log(describeTally('Vitest worker: setup + crashlab/vitest', tallyModules(plugin, bare)))
  console.log('\nGoal: the worker line ≤ 150 (crashlab/vitest and its setup file, with their dependencies).')
}

/** Self time by package (crashlab's own files by their folder) in a CPU profile. */
function profileByPackage(file: string): Array<[string, number]> {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as {
    nodes: Array<{ id: number; callFrame: { url: string; functionName: string } }>
    samples: number[]
    timeDeltas: number[]
  }
  const groupOf = new Map<number, string>()
  for (const node of profile.nodes) {
    const url = node.callFrame.url
    let group: string
    if (url === '')
      group = node.callFrame.functionName.startsWith('(') ? node.callFrame.functionName : '(native)'
    else if (url.startsWith('node:')) group = 'node: internals'
    else {
      const pkg = /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(url)
      group =
        pkg === null
          ? url
          : pkg[1] === 'crashlab'
            ? `crashlab ${(pkg[2] ?? '').split('/').slice(0, 3).join('/')}`
            : (pkg[1] as string)
    }
    groupOf.set(node.id, group)
  }
  const self = new Map<string, number>()
  profile.samples.forEach((id, i) => {
    const group = groupOf.get(id) ?? '?'
    self.set(group, (self.get(group) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000)
  })
  return [...self].sort((a, b) => b[1] - a[1])
}

function profileSection(): void {
  console.log('\n## CPU profile of importing each entry (self time, ms)\n')
  const dir = freshProject('profile')
  for (const entry of ENTRIES) {
    const profDir = join(dir, `prof-${entry.replace('/', '-')}`)
    mkdirSync(profDir, { recursive: true })
    const r = spawnSync(
      process.execPath,
      ['--cpu-prof', '--cpu-prof-dir', profDir, '--input-type=module', '-e', `await import('${entry}')`],
      { cwd: dir, encoding: 'utf8' },
    )
    if (r.status !== 0) throw new Error(`profiling ${entry} failed:\n${r.stderr}`)
    const file = join(profDir, readdirSync(profDir)[0] as string)
    const groups = profileByPackage(file)
    const total = groups.reduce((n, [, ms]) => n + ms, 0)
    console.log(`${entry} (${total.toFixed(0)} ms sampled):`)
    for (const [group, ms] of groups.slice(0, 8)) console.log(`  ${ms.toFixed(1).padStart(7)}  ${group}`)
    rmSync(profDir, { recursive: true, force: true })
  }
}

async function suiteSection(): Promise<void> {
  console.log(
    `\n## A suite of ${FILES} trivial test files, CI=true, Vitest defaults (median of ${ROUNDS} runs)\n`,
  )
  const variants: SuiteVariant[] = ['none', 'msw', 'msw-fetch', 'plugin', 'plugin-replay']
  const dirs = new Map<SuiteVariant, string>()
  // The replayed suite's cassettes are recorded once against the scripted provider.
  const { startScriptedProvider } = (await import(
    join(freshProject('provider'), 'node_modules', 'crashlab', 'dist', 'src', 'testing', 'index.js')
  )) as typeof import('../src/testing/index.ts')
  const provider = await startScriptedProvider({ policy: () => ({ text: 'Hello!' }) })
  try {
    for (const v of variants) dirs.set(v, writeSuite(v, FILES, { baseUrl: provider.url }))
    const recorded = await runVitestAsync(dirs.get('plugin-replay') as string, { CRASHLAB_RECORD: 'all' })
    if (recorded.status !== 0) throw new Error(`recording the replayed suite failed:\n${recorded.output}`)
  } finally {
    await provider.close()
  }
  const samples = new Map<SuiteVariant, number[]>(variants.map((v) => [v, []]))
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate the order, so a slow spell of a shared machine hits every setup alike.
    for (const v of round % 2 === 0 ? variants : [...variants].reverse()) {
      const run = runVitest(dirs.get(v) as string)
      if (run.status !== 0) throw new Error(`the ${v} suite failed:\n${run.output}`)
      samples.get(v)?.push(run.ms)
    }
  }
  const med = new Map(variants.map((v) => [v, median(samples.get(v) as number[])]))
  const ms = (v: SuiteVariant): number => med.get(v) as number
  for (const v of variants) {
    console.log(
      `${v.padEnd(14)} ${(ms(v) / 1000).toFixed(2).padStart(6)} s   ${(ms(v) / ms('none')).toFixed(2)}× no setup`,
    )
  }
  console.log(`\nplugin / bare msw:            ${(ms('plugin') / ms('msw')).toFixed(2)}×   (goal ≤ 1.2×)`)
  console.log(
    `plugin + replay / bare msw:   ${(ms('plugin-replay') / ms('msw')).toFixed(2)}×   (goal ≤ 1.3×)`,
  )
  // What msw itself costs a file that makes one request (its socket-level interception of fetch, the
  // first connection's set-up) is in the replayed suite too: this ratio leaves it out.
  console.log(
    `plugin + replay / msw answering the same request: ${(ms('plugin-replay') / ms('msw-fetch')).toFixed(2)}×`,
  )
}

function timeProcess(args: string[], cwd: string, env: NodeJS.ProcessEnv): number {
  const start = performance.now()
  const r = spawnSync(process.execPath, args, { cwd, encoding: 'utf8', env: { ...process.env, ...env } })
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} failed:\n${r.stderr}`)
  return performance.now() - start
}

function cliSection(): void {
  console.log(`\n## The CLI as a process (median of ${CLI_ROUNDS})\n`)
  const dir = freshProject('cli')
  const bin = join(dir, 'node_modules', 'crashlab', 'dist', 'src', 'cli', 'bin.js')
  const env = { CRASHLAB_DIR: join(dir, '.crashlab'), NO_COLOR: '1' }
  // A store with 20 runs, so `ls` prints what a user sees (a table), and the baseline opens an index
  // that exists.
  rmSync(env.CRASHLAB_DIR, { recursive: true, force: true })
  const runs = join(import.meta.dirname, 'diagnoser', 'runs')
  const cassettes = readdirSync(runs)
    .filter((f) => f.endsWith('.cassette.json'))
    .slice(0, 20)
    .map((f) => join(runs, f))
  timeProcess([bin, 'import', ...cassettes], dir, env)
  const openIndex = `const { DatabaseSync } = process.getBuiltinModule('node:sqlite'); new DatabaseSync(${JSON.stringify(join(env.CRASHLAB_DIR, 'index.db'))}).close()`
  const cases: Array<[string, string[]]> = [
    ['node -e 0', ['-e', '0']],
    ['node -e 0 + open index.db', ['--no-warnings', '-e', openIndex]],
    ['crashlab --version', [bin, '--version']],
    ['crashlab ls', [bin, 'ls']],
  ]
  const samples = new Map(cases.map(([name]) => [name, [] as number[]]))
  for (let round = 0; round < CLI_ROUNDS; round++) {
    for (const [name, args] of round % 2 === 0 ? cases : [...cases].reverse())
      samples.get(name)?.push(timeProcess(args, dir, env))
  }
  const med = new Map([...samples].map(([k, v]) => [k, median(v)]))
  const base = med.get('node -e 0 + open index.db') as number
  for (const [name] of cases) {
    const ms = med.get(name) as number
    console.log(
      `${name.padEnd(28)} ${ms.toFixed(0).padStart(5)} ms   ${(ms / base).toFixed(2)}× node + index`,
    )
  }
  console.log('\nGoal: crashlab --version and crashlab ls ≤ 1.5× node -e 0 plus opening the index.')
}

if (!ONLY || ONLY === 'modules') moduleSection()
if (!ONLY || ONLY === 'profile') profileSection()
if (!ONLY || ONLY === 'cli') cliSection()
if (!ONLY || ONLY === 'suite') await suiteSection()
