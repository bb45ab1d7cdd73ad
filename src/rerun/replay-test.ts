import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { loadCassette } from '../case/cassette-load.ts'
import { writeCassette } from '../case/cassette-write.ts'
import type { EntryPoint, Run } from '../case/schema/run.ts'
import { CrashlabError, ERROR_CODES, type ErrorCode } from '../errors.ts'
import { markFailed } from '../harness/mark-failed.ts'
import type { NetworkLedger } from '../interceptor/network-ledger.ts'
import { findVitestBin } from './find-vitest-bin.ts'

type TestEntry = Extract<EntryPoint, { kind: 'test' }>

/**
 * The environment variables the plugin's setup file reads to replay one test from a given run instead
 * of its own cassette (see plugin/setup.ts): the cassette to replay, the test's full name, and where to
 * write the replayed run.
 *
 * @example
 * spawn(vitest, ['run', file, '-t', name], { env: { ...process.env, [REPLAY_ENV.run]: cassette, [REPLAY_ENV.test]: name, [REPLAY_ENV.out]: out } })
 */
export const REPLAY_ENV = {
  run: 'CRASHLAB_REPLAY_RUN',
  test: 'CRASHLAB_REPLAY_TEST',
  out: 'CRASHLAB_REPLAY_OUT',
  /**
   * `crashlab crash-test` of a test's run: a JSON file `{ faults, steps? }`. After its replay, the test
   * runs the crash cells over the run and writes them beside the replayed run (`crashCellsFileOf`).
   */
  crash: 'CRASHLAB_REPLAY_CRASH',
} as const

/**
 * Where the replayed test writes the crash cells of `crashlab crash-test` (REPLAY_ENV.crash): a JSON
 * list of `{ step, fault, outcome, detail, variant }`, each variant a redacted cassette beside it
 * (`variant` is its file name).
 *
 * @example
 * crashCellsFileOf('/tmp/x/replay.cassette.json') // '/tmp/x/replay.cassette.json.crash.json'
 */
export function crashCellsFileOf(out: string): string {
  return `${out}.crash.json`
}

/** One crash cell as the replayed test wrote it, with its variant run read back. */
export interface TestCrashCell {
  step: number
  /** The fault as data (a crash test's `Fault`). */
  fault: unknown
  outcome: 'survived' | 'failed' | 'diverged'
  detail: string
  variant: Run
}

interface TestReplayOptions {
  cwd: string
  sourcePath?: string
  env?: NodeJS.ProcessEnv
  onOutput?: (chunk: string) => void
  /** `crashlab crash-test`: after its replay, the test runs these crash cells over the run. */
  crash?: { faults: readonly unknown[]; steps?: readonly number[] }
}

interface JsonReport {
  testResults?: Array<{
    assertionResults?: Array<{ fullName?: string; status?: string; failureMessages?: string[] }>
  }>
}

/**
 * Runs the project's Vitest on the entry point's file, filtered to its one test, with the setup file
 * told (REPLAY_ENV) to replay that test from `source` and write the replayed run to a file this reads.
 */
export async function replayTest(
  source: Run,
  entry: TestEntry,
  options: TestReplayOptions,
): Promise<{
  run: Run
  error?: unknown
  failure?: string
  network?: NetworkLedger
  /** With `crash`: the cells the test ran (absent when it never got to them). */
  crashCells?: TestCrashCell[]
}> {
  const bin = vitestBin(options.cwd)
  const tmp = mkdtempSync(join(tmpdir(), 'crashlab-replay-'))
  try {
    const input = join(tmp, 'source.cassette.json')
    const out = join(tmp, 'replay.cassette.json')
    const report = join(tmp, 'report.json')
    writeCassette(input, source)
    const env: NodeJS.ProcessEnv = {}
    for (const [key, value] of Object.entries(options.env ?? process.env)) {
      // A parent Vitest's worker variables would confuse the child's; the record switch must not reach it.
      if (!key.startsWith('VITEST') && key !== 'CRASHLAB_RECORD') env[key] = value
    }
    Object.assign(env, {
      CRASHLAB_RECORD: 'replay',
      [REPLAY_ENV.run]: input,
      [REPLAY_ENV.test]: entry.test,
      [REPLAY_ENV.out]: out,
    })
    if (options.crash) {
      const plan = join(tmp, 'crash-plan.json')
      writeFileSync(plan, JSON.stringify(options.crash))
      env[REPLAY_ENV.crash] = plan
    }
    const args = [
      bin,
      'run',
      entry.file,
      '-t',
      `^${escapeRegExp(entry.test)}$`,
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${report}`,
    ]
    const code = await run(args, options.cwd, env, options.onOutput)
    const result = readReport(report, entry.test)
    if (!existsSync(out)) {
      throw new CrashlabError(
        'E_REPLAY_ENTRY',
        `Vitest ran ${entry.file} (exit code ${code}) but the test "${entry.test}" did not replay: ` +
          (result.found
            ? `${result.message ?? 'it failed before its agent ran'}`
            : 'no test has that name in that file') +
          `. Run the replay from the folder the run was recorded in, where ${entry.file} exists, with crashlab() in ` +
          'the plugins of its vitest.config.ts.',
        { subject: entry.file },
      )
    }
    const replayed = loadCassette(out).run
    const network = readNetwork(networkFileOf(out))
    const crashCells = options.crash ? readCrashCells(out) : undefined
    if (crashCells) return { run: replayed, crashCells, ...(network && { network }) }
    if (code === 0) return { run: replayed, ...(network && { network }) }
    // The setup file writes a replay failure (a divergence, steps left unused) as the run's error.
    const own = replayed.error?.code
    if (!own || !REPLAY_FAILURES.has(own)) {
      // The test failed with its replay intact (its oracles or assertions failed, as they did when it
      // was recorded): a faithful replay whose outcome is fail, not a failed replay.
      const failure = result.message ?? `the test "${entry.test}" failed (Vitest exit code ${code})`
      return { run: { ...replayed, status: 'ok', outcome: 'fail' }, failure, ...(network && { network }) }
    }
    // The child replayed a temporary copy of the run: name the source's own cassette instead.
    const message = (replayed.error?.message ?? '').replaceAll(input, options.sourcePath ?? 'the stored run')
    const error =
      own && (ERROR_CODES as readonly string[]).includes(own)
        ? new CrashlabError(own as ErrorCode, message, { subject: entry.file })
        : new Error(result.message ?? `the replay of test "${entry.test}" failed (Vitest exit code ${code})`)
    return { run: markFailed(replayed, error), error, ...(network && { network }) }
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
}

/**
 * The errors of a replay that did not do what the run did: the agent called differently, left recorded
 * steps unused, or reached for what the recording does not answer. Any other failure of the replayed
 * test is the test's verdict on a faithful replay.
 *
 * @example
 * REPLAY_FAILURES.has('E_DIVERGENCE') // true
 */
export const REPLAY_FAILURES: ReadonlySet<string> = new Set([
  'E_DIVERGENCE',
  'E_REPLAY_UNUSED',
  'E_REPLAY_MISSING',
  'E_CASSETTE_MISSING',
  'E_UNHANDLED_HOST',
  'E_REPLAY_CONNECTION',
])

/**
 * Where the setup file of the Vitest child writes what the replay let out and refused (its network
 * ledger, counted over the whole worker: module load, the test, `afterAll`), beside the replayed run.
 *
 * @example
 * writeFileSync(networkFileOf(process.env.CRASHLAB_REPLAY_OUT), JSON.stringify(ledger))
 */
export function networkFileOf(out: string): string {
  return `${out}.network.json`
}

function readNetwork(path: string): NetworkLedger | undefined {
  if (!existsSync(path)) return undefined
  try {
    const data = JSON.parse(readFileSync(path, 'utf8')) as Partial<NetworkLedger>
    const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [])
    return { requests: list(data.requests), connections: list(data.connections), refused: list(data.refused) }
  } catch {
    return undefined
  }
}

function readCrashCells(out: string): TestCrashCell[] | undefined {
  const path = crashCellsFileOf(out)
  if (!existsSync(path)) return undefined
  const cells = JSON.parse(readFileSync(path, 'utf8')) as Array<
    Omit<TestCrashCell, 'variant'> & { variant: string }
  >
  return cells.map((cell) => ({ ...cell, variant: loadCassette(join(dirname(out), cell.variant)).run }))
}

function run(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  onOutput: ((chunk: string) => void) | undefined,
): Promise<number> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    child.stdout.on('data', (d: Buffer) => onOutput?.(String(d)))
    child.stderr.on('data', (d: Buffer) => onOutput?.(String(d)))
    child.on('error', fail)
    child.on('close', (code) => done(code ?? 1))
  })
}

/** The test's status and its first failure, without the stack, from Vitest's JSON report. */
function readReport(path: string, name: string): { found: boolean; message?: string } {
  if (!existsSync(path)) return { found: false }
  const report = JSON.parse(readFileSync(path, 'utf8')) as JsonReport
  for (const file of report.testResults ?? []) {
    for (const test of file.assertionResults ?? []) {
      if (test.fullName !== name && test.fullName?.replaceAll(' > ', ' ') !== name.replaceAll(' > ', ' '))
        continue
      if (test.status === 'skipped' || test.status === 'pending') continue
      const first = test.failureMessages?.[0]
      return { found: true, message: first ? withoutStack(first) : undefined }
    }
  }
  return { found: false }
}

function withoutStack(text: string): string {
  const lines = text.split('\n')
  const at = lines.findIndex((l) => /^\s+at /.test(l))
  return (at === -1 ? lines : lines.slice(0, at))
    .join('\n')
    .replace(/^(CrashlabError|DivergenceError|Error): /, '')
    .trim()
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

function vitestBin(cwd: string): string {
  const bin = findVitestBin(cwd)
  if (bin) return bin
  throw new CrashlabError(
    'E_REPLAY_ENTRY',
    `this run's entry point is a Vitest test, and Vitest cannot be found from ${cwd}: run the replay in the ` +
      'project (`--cwd`), or install it there (`npm i -D vitest`).',
    { subject: cwd },
  )
}
