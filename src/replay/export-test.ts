import { mkdirSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { isAbsolute, join, relative, resolve, sep } from 'node:path'
import { writeCassette } from '../case/cassette-write.ts'
import type { JsonValue } from '../case/schema/json.ts'
import type { Run } from '../case/schema/run.ts'
import type { Redactor } from '../redact/types.ts'
import { exportedTestSource } from './internal/test-source.ts'

/**
 * The describe block every exported test sits in: `crashlab vitest --exported` runs the files named
 * `*.crashlab.test.ts`, and `-t crashlab:exported` picks these tests out of any run.
 *
 * @example
 * EXPORTED_SUITE // 'crashlab:exported'
 */
export const EXPORTED_SUITE = 'crashlab:exported'

/**
 * How an exported test file is named: `<dir>/<name>-<run id>.crashlab.test.ts`.
 *
 * @example
 * EXPORTED_TEST_SUFFIX // '.crashlab.test.ts'
 */
export const EXPORTED_TEST_SUFFIX = '.crashlab.test.ts'

/**
 * Options of `exportTest`.
 *
 * @example
 * const options: ExportTestOptions = { dir: 'test/regressions', storeDir: '/srv/agent/.crashlab' }
 */
export interface ExportTestOptions {
  /** The folder the test file goes to; its cassette goes to `<dir>/__cassettes__/`. */
  dir: string
  /** The store the run came from: its absolute path is written `<store>` in what the test asserts. */
  storeDir?: string
  /** The home folder, written `~`. Default `os.homedir()`. */
  home?: string
  /**
   * The project root, against which an absolute `module` entry point is made relative (the replay
   * resolves it against the folder Vitest runs in). Default `process.cwd()`.
   */
  root?: string
  /** Where the test imports `crashlabReplay` and `crashlabStore` from. Default `crashlab/vitest`. */
  importFrom?: string
  /** The redaction rules the cassette is written through (the default rules always apply). */
  redactor?: Redactor
}

/**
 * What `exportTest` wrote.
 *
 * @example
 * const { testPath, cassettePath } = exportTest(run, { dir: 'test/regressions' })
 */
export interface ExportedTest {
  testPath: string
  cassettePath: string
}

/**
 * Turns a stored run into a Vitest regression test: writes its cassette (redacted, with absolute store
 * and home paths in messages written `<store>` and `~`) to `<dir>/__cassettes__/`, and a test file
 * beside it that loads the cassette with `crashlabReplay` (which replays a run with a `module` entry
 * point offline, strictly, and grades it again) and asserts the run's status, check results and
 * findings. A failure seen in production becomes a test that keeps it from coming back unnoticed.
 *
 * @example
 * import { exportTest, openStore } from 'crashlab'
 *
 * const store = await openStore()
 * const { testPath } = exportTest(store.load('last'), { dir: 'test/regressions', storeDir: store.dir })
 * // then: npx crashlab vitest --exported
 */
export function exportTest(source: Run, options: ExportTestOptions): ExportedTest {
  const dir = resolve(options.dir)
  const base = `${slug(source.name)}-${source.id.toLowerCase()}`
  const cassetteName = `${base}.cassette.json`
  const testPath = join(dir, `${base}${EXPORTED_TEST_SUFFIX}`)
  const cassettePath = join(dir, '__cassettes__', cassetteName)
  const run = portable(source, options)
  mkdirSync(dir, { recursive: true })
  const written = writeCassette(cassettePath, run, options.redactor ? { redactor: options.redactor } : {})
  const text = exportedTestSource(written.run, {
    cassette: `./__cassettes__/${cassetteName}`,
    importFrom: options.importFrom ?? 'crashlab/vitest',
    suite: EXPORTED_SUITE,
  })
  writeFileSync(testPath, text)
  return { testPath, cassettePath }
}

/**
 * The run with machine paths out of what people read and the test asserts (messages, findings, errors,
 * metadata), and a relative module entry point. What the agent is fed and matched on (the input, the
 * steps' requests and responses) is left as it was: changing it would break the replay.
 */
function portable(run: Run, options: ExportTestOptions): Run {
  const replacements: Array<[string, string]> = []
  if (options.storeDir) replacements.push([resolve(options.storeDir), '<store>'])
  const home = options.home ?? homedir()
  if (home && home !== sep) replacements.push([home, '~'])
  const fix = <T>(value: T): T => replacePaths(value as JsonValue, replacements) as T
  const root = resolve(options.root ?? process.cwd())
  let entryPoint = run.entryPoint
  if (entryPoint?.kind === 'module' && isAbsolute(entryPoint.module)) {
    const rel = relative(root, entryPoint.module).split(sep).join('/')
    entryPoint = { ...entryPoint, module: rel.startsWith('.') ? rel : `./${rel}` }
  }
  return {
    ...run,
    entryPoint,
    output: fix(run.output),
    error: fix(run.error),
    checks: fix(run.checks),
    findings: fix(run.findings),
    metadata: fix(run.metadata),
    diagnosis: fix(run.diagnosis),
    fixes: fix(run.fixes),
    steps: run.steps.map((step) => (step.error ? { ...step, error: fix(step.error) } : step)),
  }
}

function replacePaths(value: JsonValue, replacements: ReadonlyArray<[string, string]>): JsonValue {
  if (typeof value === 'string') {
    let out = value
    // The store usually sits under home: the longer path first.
    for (const [path, mark] of [...replacements].sort((a, b) => b[0].length - a[0].length))
      out = out.split(path).join(mark)
    return out
  }
  if (Array.isArray(value)) return value.map((v) => replacePaths(v, replacements))
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, replacePaths(v as JsonValue, replacements)]),
    )
  return value
}

function slug(name: string): string {
  const s = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
  return s || 'run'
}
