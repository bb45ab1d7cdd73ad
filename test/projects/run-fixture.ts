/**
 * Runs a fixture project under test/projects/ with a real Vitest in a child process. Runs that write
 * cassettes work on a copy of the project made beside it (`<name>.tmp-<id>/`, git-ignored), so the
 * relative imports of the project still resolve and the repository is not dirtied.
 */
import { spawn } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'

export const PROJECTS = import.meta.dirname
const require = createRequire(import.meta.url)
const VITEST_BIN = join(require.resolve('vitest/package.json'), '..', 'vitest.mjs')
const CRASHLAB_BIN = join(PROJECTS, 'crashlab-vitest-bin.ts')

/** CI detection (std-env) reads these; a "local" child must see none of them. */
const CI_VARS = [
  'CI',
  'CONTINUOUS_INTEGRATION',
  'BUILD_NUMBER',
  'RUN_ID',
  'GITHUB_ACTIONS',
  'GITLAB_CI',
  'CIRCLECI',
  'TRAVIS',
  'BUILDKITE',
  'JENKINS_URL',
  'TF_BUILD',
  'CODEBUILD_BUILD_ID',
]

export interface ChildRun {
  code: number
  /** stdout and stderr together, without colors. */
  output: string
  /** What the project's test files logged to FIXTURE_LOG: provider requests and side effects per file. */
  log: Array<{ requests: number; refunds: number }>
}

/** A throw-away copy of a fixture project; `withCassettes` keeps the cassettes of `from`. */
export function copyProject(from: string, options: { withCassettes?: boolean } = {}): string {
  const source = existsSync(from) ? from : join(PROJECTS, from)
  const name = basename(source).replace(/\.tmp-.*$/, '')
  const dir = mkdtempSync(join(PROJECTS, `${name}.tmp-`))
  cpSync(source, dir, {
    recursive: true,
    filter: (path) => options.withCassettes === true || !path.slice(source.length).includes('__cassettes__'),
  })
  return dir
}

export function removeProject(dir: string): void {
  if (basename(dir).includes('.tmp-')) rmSync(dir, { recursive: true, force: true })
}

/** Runs `vitest <args>` (or the `crashlab vitest` command with `bin: 'crashlab'`) in `dir`. */
export function runFixture(
  dir: string,
  args: readonly string[],
  options: {
    env?: Record<string, string>
    ci?: boolean
    bin?: 'vitest' | 'crashlab'
    /** Another Vitest's `vitest.mjs` (a project's own install of another version). */
    vitestBin?: string
  } = {},
): Promise<ChildRun> {
  const env: Record<string, string | undefined> = { ...process.env }
  for (const key of Object.keys(env)) {
    if (
      key.startsWith('VITEST') ||
      key === 'CRASHLAB_RECORD' ||
      key.startsWith('FIXTURE_') ||
      CI_VARS.includes(key)
    )
      delete env[key]
  }
  env.NO_COLOR = '1'
  env.FORCE_COLOR = '0'
  env.NODE_ENV = 'test'
  if (options.ci) env.CI = 'true'
  const logDir = mkdtempSync(join(tmpdir(), 'crashlab-fixture-log-'))
  const logFile = join(logDir, 'log.jsonl')
  env.FIXTURE_LOG = logFile
  Object.assign(env, options.env)
  const bin = options.vitestBin ?? (options.bin === 'crashlab' ? CRASHLAB_BIN : VITEST_BIN)
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: dir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (d: Buffer) => (output += d))
    child.stderr.on('data', (d: Buffer) => (output += d))
    child.on('error', fail)
    child.on('close', (code) => {
      const log = existsSync(logFile)
        ? readFileSync(logFile, 'utf8')
            .trim()
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l))
        : []
      rmSync(logDir, { recursive: true, force: true })
      done({ code: code ?? 1, output: output.replace(/\u001b\[[0-9;]*m/g, ''), log })
    })
  })
}

/** Fails with the child's output when it exited with another code than `code`. */
export function expectExit(run: ChildRun, code: number): void {
  if (run.code !== code) throw new Error(`expected exit ${code}, got ${run.code}:\n${run.output}`)
}

/** The cassette files of a project, by file name, relative to `__cassettes__/<test file>/`. */
export function cassettesOf(dir: string, testFile: string): string[] {
  const folder = join(dir, '__cassettes__', testFile)
  return existsSync(folder) ? readdirSync(folder).sort() : []
}

/** The text of one cassette. */
export function readCassette(dir: string, testFile: string, name: string): string {
  return readFileSync(join(dir, '__cassettes__', testFile, name), 'utf8')
}
