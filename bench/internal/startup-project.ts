/**
 * Projects for measuring what crashlab costs at start-up, as a user meets it: the built package copied
 * into the project's `node_modules/crashlab` (a real folder, so Vitest loads it through Node as it loads
 * any installed package, not through its own transform), and its dependencies found in this
 * repository's `node_modules` above. `npm run build` first.
 */
import { spawn, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = join(import.meta.dirname, '..', '..')
/** Where the projects are written (ignored by git). */
export const OUT = join(ROOT, 'bench', 'out', 'startup')
export const HOOK = join(ROOT, 'bench', 'internal', 'module-count-hook.mjs')
const VITEST_BIN = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs')

/**
 * What the suite's setup is: no setup file, a setup file starting a bare msw `setupServer` with one
 * handler, the same with each file making the replayed suite's model request and msw's handler answering
 * it (`msw-fetch`: what msw itself costs a file that makes one request), `plugins: [crashlab()]`, or the
 * plugin with one `agentCase` replay per file.
 */
export type SuiteVariant = 'none' | 'msw' | 'msw-fetch' | 'plugin' | 'plugin-replay'

/** A fresh project folder with the built package installed in it. */
export function freshProject(name: string): string {
  if (!existsSync(join(ROOT, 'dist', 'src', 'index.js')))
    throw new Error('no dist/: run `npm run build` first')
  const dir = join(OUT, name)
  rmSync(dir, { recursive: true, force: true })
  const pkg = join(dir, 'node_modules', 'crashlab')
  mkdirSync(pkg, { recursive: true })
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: `bench-${name}`, private: true, type: 'module' })}\n`,
  )
  cpSync(join(ROOT, 'package.json'), join(pkg, 'package.json'))
  cpSync(join(ROOT, 'dist'), join(pkg, 'dist'), {
    recursive: true,
    filter: (src) => !/\.test\.(js|d\.ts|js\.map)$/.test(src),
  })
  return dir
}

const TRIVIAL = (i: number): string =>
  `import { expect, test } from 'vitest'\ntest('adds ${i}', () => {\n  expect(${i} + 1).toBe(${i + 1})\n})\n`

const REPLAYED = (i: number, baseUrl: string): string => `import { agentCase } from 'crashlab/vitest'
import { test } from 'vitest'

async function greeter(input) {
  const res = await fetch('${baseUrl}/v1/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: input }] }),
  })
  const body = await res.json()
  return body.choices[0].message.content
}

test('greets ${i}', agentCase(greeter, { agent: 'greeter', input: 'Say hello to user ${i}' }))
`

const MSW_SETUP = `import { HttpResponse, http } from 'msw'
import { setupServer } from 'msw/node'
import { afterAll } from 'vitest'

const server = setupServer(http.get('https://api.example.test/ping', () => HttpResponse.json({ ok: true })))
server.listen({ onUnhandledRequest: 'bypass' })
afterAll(() => server.close())
`

/** The bare msw setup whose handler answers the replayed suite's model request, as the cassette does. */
const MSW_FETCH_SETUP = `import { HttpResponse, http } from 'msw'
import { setupServer } from 'msw/node'
import { afterAll } from 'vitest'

const server = setupServer(
  http.post('*/v1/chat/completions', () =>
    HttpResponse.json({ id: 'c1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'Hello!' }, finish_reason: 'stop' }] }),
  ),
)
server.listen({ onUnhandledRequest: 'bypass' })
afterAll(() => server.close())
`

const FETCHED = (i: number, baseUrl: string): string => `import { expect, test } from 'vitest'

test('greets ${i}', async () => {
  const res = await fetch('${baseUrl}/v1/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello to user ${i}' }] }),
  })
  const body = await res.json()
  expect(body.choices[0].message.content).toBe('Hello!')
})
`

/** How `writeSuite` writes a suite, besides its setup. */
export interface SuiteOptions {
  /** The project folder's name under bench/out/startup/. Default `suite-<variant>`. */
  name?: string
  /**
   * Where the agent's model is (`plugin-replay`: record its cassettes with `CRASHLAB_RECORD=all`;
   * `msw-fetch`: msw answers it, so any port fetch allows).
   */
  baseUrl?: string
  /** Trivial test files import `crashlab/vitest` (and use nothing from it), as a file of agent tests does. */
  importPlugin?: boolean
}

/** Writes a suite of `files` test files with the given setup; returns its folder. */
export function writeSuite(variant: SuiteVariant, files: number, options: SuiteOptions = {}): string {
  const { baseUrl = 'http://127.0.0.1:8099', importPlugin = false } = options
  const dir = freshProject(options.name ?? `suite-${variant}`)
  const plugin = variant === 'plugin' || variant === 'plugin-replay'
  const config = [
    plugin ? "import { crashlab } from 'crashlab/vitest'\n" : '',
    'export default {\n',
    plugin ? '  plugins: [crashlab()],\n' : '',
    `  test: { include: ['*.test.mjs']${variant.startsWith('msw') ? ", setupFiles: ['./msw-setup.mjs']" : ''} },\n`,
    '}\n',
  ].join('')
  writeFileSync(join(dir, 'vitest.config.mjs'), config)
  if (variant === 'msw') writeFileSync(join(dir, 'msw-setup.mjs'), MSW_SETUP)
  if (variant === 'msw-fetch') writeFileSync(join(dir, 'msw-setup.mjs'), MSW_FETCH_SETUP)
  for (let i = 1; i <= files; i++) {
    const name = `t${String(i).padStart(2, '0')}.test.mjs`
    const trivial = `${importPlugin ? "import 'crashlab/vitest'\n" : ''}${TRIVIAL(i)}`
    const body =
      variant === 'plugin-replay'
        ? REPLAYED(i, baseUrl)
        : variant === 'msw-fetch'
          ? FETCHED(i, baseUrl)
          : trivial
    writeFileSync(join(dir, name), body)
  }
  return dir
}

/** The result of one `vitest run` of a project. */
export interface VitestRun {
  ms: number
  status: number | null
  output: string
}

/** Runs `vitest run` in `dir` as CI does (`CI=true`: cassettes replay), timed from spawn to exit. */
export function runVitest(dir: string, env: NodeJS.ProcessEnv = {}): VitestRun {
  const start = performance.now()
  const r = spawnSync(process.execPath, [VITEST_BIN, 'run'], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, CI: 'true', NO_COLOR: '1', ...env },
  })
  return { ms: performance.now() - start, status: r.status, output: `${r.stdout}${r.stderr}` }
}

/**
 * `runVitest` without blocking this process: for a run whose model is served from this process (the
 * scripted provider recording a suite's cassettes).
 */
export function runVitestAsync(dir: string, env: NodeJS.ProcessEnv = {}): Promise<VitestRun> {
  const start = performance.now()
  const child = spawn(process.execPath, [VITEST_BIN, 'run'], {
    cwd: dir,
    env: { ...process.env, CI: 'true', NO_COLOR: '1', ...env },
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8')
  })
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8')
  })
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (status) => resolve({ ms: performance.now() - start, status, output }))
  })
}

/** Each process's modules, from a `MODULE_COUNT_OUT` file: pid → its argv and the URLs it loaded. */
export function readModuleCounts(file: string): Map<string, { argv: string; urls: string[] }> {
  const byPid = new Map<string, { argv: string; urls: string[] }>()
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const space = line.indexOf(' ')
    if (space < 0) continue
    const pid = line.slice(0, space)
    const rest = line.slice(space + 1)
    const entry = byPid.get(pid) ?? { argv: '', urls: [] }
    byPid.set(pid, entry)
    if (rest.startsWith('argv:')) entry.argv = rest.slice(5)
    else entry.urls.push(rest)
  }
  return byPid
}

/** What a set of loaded modules is made of: crashlab's own files, and each dependency's count. */
export interface ModuleTally {
  total: number
  own: number
  packages: Map<string, number>
}

/** Tallies module URLs, leaving out Node's built-ins and every URL in `besides` (a baseline's). */
export function tallyModules(urls: readonly string[], besides: ReadonlySet<string> = new Set()): ModuleTally {
  const packages = new Map<string, number>()
  let own = 0
  let total = 0
  for (const url of urls) {
    if (url.startsWith('node:') || besides.has(url)) continue
    total++
    const pkg = /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1]
    if (pkg === 'crashlab') own++
    else if (pkg !== undefined) packages.set(pkg, (packages.get(pkg) ?? 0) + 1)
    else own++
  }
  return { total, own, packages }
}

/** The modules a Node process loads running `code` (an ES module) in `dir`. */
export function modulesOf(dir: string, code: string): string[] {
  return processModules(dir, ['--input-type=module', '-e', code])
}

/** The modules a Node process loads run with `args` (after the counting hook) in `dir`. */
export function processModules(dir: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): string[] {
  const out = join(dir, `.modules-${process.pid}-${Math.random().toString(36).slice(2)}.txt`)
  const r = spawnSync(process.execPath, ['--import', HOOK, ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, ...env, MODULE_COUNT_OUT: out },
  })
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} failed in ${dir}:\n${r.stderr}`)
  const urls = [...readModuleCounts(out).values()].flatMap((p) => p.urls)
  rmSync(out, { force: true })
  return urls
}

/** The bytes of crashlab's own files among loaded module URLs (the bundle's files under `dist/`). */
export function ownBytes(urls: readonly string[]): number {
  return urls
    .filter((url) => /\/node_modules\/crashlab\/dist\//.test(url))
    .reduce((sum, url) => sum + statSync(fileURLToPath(url)).size, 0)
}

/**
 * The source modules of crashlab that the loaded files hold (`src/store/run-store.ts`, ...): the bundle
 * marks where each module's code starts with a `// <source path>` line.
 */
export function ownSourceModules(urls: readonly string[]): string[] {
  return urls
    .filter((url) => /\/node_modules\/crashlab\/dist\//.test(url))
    .flatMap((url) => [
      ...readFileSync(fileURLToPath(url), 'utf8').matchAll(
        /^\/\/ ((?:src|plugin|fixtures|matchers)\/\S+\.ts)$/gm,
      ),
    ])
    .map((m) => m[1] as string)
}

/**
 * The modules one Vitest worker loads running a project's test files (the first worker process seen),
 * with the module hook in every process through `NODE_OPTIONS`.
 */
export function workerModules(dir: string, env: NodeJS.ProcessEnv = {}): string[] {
  const out = join(dir, `.modules-${process.pid}.txt`)
  rmSync(out, { force: true })
  const run = runVitest(dir, {
    ...env,
    MODULE_COUNT_OUT: out,
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${HOOK}`.trim(),
  })
  if (run.status !== 0) throw new Error(`vitest run failed in ${dir}:\n${run.output}`)
  const workers = [...readModuleCounts(out).values()].filter((p) => /workers\/(forks|threads)/.test(p.argv))
  rmSync(out, { force: true })
  const first = workers[0]
  if (first === undefined) throw new Error(`no Vitest worker process seen in ${dir}`)
  return first.urls
}
