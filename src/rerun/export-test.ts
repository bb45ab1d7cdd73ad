import { mkdirSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { isAbsolute, join, relative, resolve, sep } from 'node:path'
import { writeCassette } from '../case/cassette-write.ts'
import type { JsonValue } from '../case/schema/json.ts'
import type { FixProposal, Run, Trial, Verification } from '../case/schema/run.ts'
import { CrashlabError } from '../errors.ts'
import { parsePatch } from '../patches/parse-patch.ts'
import type { Patch } from '../patches/patch-schema.ts'
import type { Redactor } from '../redact/types.ts'
import type { RunStore } from '../store/types.ts'
import { rerunEntry } from './internal/rerun-entry.ts'
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
  /**
   * A verified fix of the run to write out too: its id (`fix-1`), or `auto` for the best-ranked fix whose
   * verdict is VERIFIED. The test file then holds a second test: a passing patched fork of that fix's
   * verification (loaded from `store`), replayed with the fix re-applied from the fork step, asserted
   * passing. Throws `E_VERIFY_FIX` when that fix is not VERIFIED.
   */
  fix?: string
  /** The store the fix's patched fork is loaded from. Needed with `fix`; its folder is `storeDir` by default. */
  store?: RunStore
  /**
   * The agent the test runs again, as `<module>#<export>` (the module relative to `root`), for a run
   * whose entry point does not name one (an imported run, or an `agentCase` run of an inline function).
   * Default: the run's `module` entry point, else the module and export an `agentCase` run recorded
   * for its agent function.
   */
  entry?: string
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
  /** The module entry point the test runs the agent through (relative to `root`). */
  entryPoint: { kind: 'module'; module: string; export: string }
  /** With `fix`: the fix, the patched fork written out, and that fork's cassette. */
  fix?: { id: string; forkId: string; atStep: number; cassettePath: string }
}

/**
 * A verified fix of a run, ready to be written out: the fix, its verification, the passing patched
 * trial whose fork is kept in the store, the patch and the step it applies from.
 *
 * @example
 * const { fix, trial } = verifiedFix(run, 'auto')
 */
export interface VerifiedFix {
  fix: FixProposal
  verification: Verification
  trial: Trial & { runId: string }
  patch: Patch
  atStep: number
}

/**
 * Turns a stored run into a Vitest regression test: writes its cassette (redacted, with absolute store
 * and home paths in messages written `<store>` and `~`) to `<dir>/__cassettes__/`, and a test file
 * beside it that runs the agent again against the cassette with `crashlabReplay` (offline, strictly:
 * its `module` entry point, the agent function an `agentCase` run recorded, or `entry`) and asserts
 * the check results and findings the run had. A change of the agent's code that makes it act otherwise
 * fails the test. A run whose agent cannot be run again is refused (`E_EXPORT_NO_AGENT`), naming the
 * test that already runs it. A failure seen in production becomes a test that keeps it from coming
 * back unnoticed.
 * With `fix` (and `store`), the file holds a second test: a passing patched fork of that verified fix,
 * its cassette beside the first, replayed with the fix re-applied from the fork step and asserted passing.
 *
 * @example
 * import { exportTest, openStore } from 'crashlab'
 *
 * const store = await openStore()
 * const { testPath } = exportTest(store.load('last'), { dir: 'test/regressions', storeDir: store.dir })
 * // then: npx crashlab vitest --exported
 * exportTest(store.load('last'), { dir: 'test/regressions', store, fix: 'auto' }) // and its verified fix
 */
export function exportTest(source: Run, options: ExportTestOptions): ExportedTest {
  const dir = resolve(options.dir)
  const base = `${slug(source.name)}-${source.id.toLowerCase()}`
  const cassetteName = `${base}.cassette.json`
  const testPath = join(dir, `${base}${EXPORTED_TEST_SUFFIX}`)
  const cassettePath = join(dir, '__cassettes__', cassetteName)
  const storeDir = options.storeDir ?? options.store?.dir
  const paths = { ...options, ...(storeDir && { storeDir }) }
  // Everything is read (and every error thrown) before a file is written. The test runs the agent
  // again, through a module entry point: without one it would only grade the recording again, and pass
  // whatever the agent's code became.
  const rerun = rerunnable(source, options.entry)
  const chosen = options.fix === undefined ? undefined : verifiedFix(source, options.fix)
  let forked: Run | undefined
  if (chosen) {
    if (!rerun.entryPoint) {
      throw new CrashlabError(
        'E_REPLAY_ENTRY',
        `run ${source.id} has ${source.entryPoint ? `a ${source.entryPoint.kind}` : 'no'} entry point: only a run with a ` +
          'module entry point can be exported with its fix, whose fork the test replays with the fix re-applied. ' +
          'Export it without --fix.',
        { subject: source.id },
      )
    }
    if (!options.store) {
      throw new CrashlabError(
        'E_VERIFY_FIX',
        `exporting ${chosen.fix.id} needs the store its patched fork ${chosen.trial.runId} is kept in: pass \`store\`.`,
        { subject: source.id },
      )
    }
    forked = options.store.load(chosen.trial.runId)
  }
  const { entryPoint } = rerun
  if (!entryPoint) throw rerun.refusal
  if (forked) forked = { ...forked, entryPoint }
  const run = portable({ ...source, entryPoint }, paths)
  mkdirSync(dir, { recursive: true })
  const writeOptions = options.redactor ? { redactor: options.redactor } : {}
  const written = writeCassette(cassettePath, run, writeOptions)
  let fixed: Parameters<typeof exportedTestSource>[1]['fix']
  let fix: ExportedTest['fix']
  if (chosen && forked) {
    const fixCassetteName = `${base}.${slug(chosen.fix.id)}.cassette.json`
    const fixCassettePath = join(dir, '__cassettes__', fixCassetteName)
    const fork = writeCassette(fixCassettePath, portable(forked, paths), writeOptions).run
    fixed = {
      id: chosen.fix.id,
      run: fork,
      cassette: `./__cassettes__/${fixCassetteName}`,
      patch: chosen.patch,
      atStep: chosen.atStep,
      verification: chosen.verification,
    }
    fix = { id: chosen.fix.id, forkId: fork.id, atStep: chosen.atStep, cassettePath: fixCassettePath }
  }
  const text = exportedTestSource(written.run, {
    cassette: `./__cassettes__/${cassetteName}`,
    importFrom: options.importFrom ?? 'crashlab/vitest',
    suite: EXPORTED_SUITE,
    ...(fixed && { fix: fixed }),
  })
  writeFileSync(testPath, text)
  const writtenEntry = written.run.entryPoint?.kind === 'module' ? written.run.entryPoint : entryPoint
  return { testPath, cassettePath, entryPoint: writtenEntry, ...(fix && { fix }) }
}

/**
 * Picks a verified fix of a run: `auto` takes the best-ranked fix whose verification verdict is
 * VERIFIED, an id takes that fix, which must be VERIFIED. The fix's verification must have kept a
 * passing patched fork in the store (`verify` with a store keeps each fork). Throws `E_VERIFY_FIX`
 * otherwise, naming the verdict the fix has and the `crashlab verify` command to run.
 *
 * @example
 * const { fix, trial, atStep } = verifiedFix(store.load('last'), 'auto')
 * console.log(fix.id, trial.runId, atStep)
 */
export function verifiedFix(run: Run, choice: string): VerifiedFix {
  const fix = choice === 'auto' ? bestVerified(run) : namedFix(run, choice)
  const verification = fix.verification as Verification
  const trial = verification.trials.find(
    (t): t is Trial & { runId: string } => t.arm === 'patched' && t.outcome === 'pass' && t.runId !== null,
  )
  if (!trial) {
    throw new CrashlabError(
      'E_VERIFY_FIX',
      `${fix.id} of run ${run.id} is VERIFIED, but its verification kept no passing patched fork in the store. ` +
        `Verify it again with the store: \`crashlab verify ${run.id} --fix ${fix.id}\`.`,
      { subject: run.id },
    )
  }
  return { fix, verification, trial, patch: parsePatch(fix.patch, fix.id), atStep: verification.atStep }
}

function rerunnable(
  run: Run,
  entry: string | undefined,
): { entryPoint: ReturnType<typeof rerunEntry>; refusal?: never } | { entryPoint?: never; refusal: unknown } {
  try {
    return { entryPoint: rerunEntry(run, entry) }
  } catch (refusal) {
    // A malformed --entry is the caller's to fix first, with or without a fix.
    if (entry !== undefined) throw refusal
    return { refusal }
  }
}

function bestVerified(run: Run): FixProposal {
  const verified = run.fixes
    .filter((f) => f.verification?.verdict === 'VERIFIED')
    .sort((a, b) => a.rank - b.rank)[0]
  if (verified) return verified
  if (run.fixes.length === 0) {
    throw new CrashlabError(
      'E_VERIFY_FIX',
      `run ${run.id} has no fixes, so none is verified: propose some with \`crashlab fix ${run.id}\`, ` +
        `then verify one with \`crashlab verify ${run.id} --fix fix-1\`.`,
      { subject: run.id },
    )
  }
  const states = run.fixes.map((f) => `${f.id} ${f.verification?.verdict ?? 'not verified'}`).join(', ')
  throw new CrashlabError(
    'E_VERIFY_FIX',
    `run ${run.id} has no VERIFIED fix (${states}): verify one with \`crashlab verify ${run.id} --fix ${run.fixes[0]?.id}\`.`,
    { subject: run.id },
  )
}

function namedFix(run: Run, id: string): FixProposal {
  const fix = run.fixes.find((f) => f.id === id)
  if (!fix) {
    const known = run.fixes.map((f) => f.id)
    throw new CrashlabError(
      'E_VERIFY_FIX',
      `run ${run.id} has no fix ${JSON.stringify(id)}` +
        (known.length > 0
          ? ` (it has ${known.join(', ')}; \`--fix auto\` picks the verified one).`
          : `: it has none yet. Propose some with \`crashlab fix ${run.id}\`.`),
      { subject: run.id },
    )
  }
  const verdict = fix.verification?.verdict
  if (verdict !== 'VERIFIED') {
    throw new CrashlabError(
      'E_VERIFY_FIX',
      verdict
        ? `${id} of run ${run.id} is ${verdict}, not VERIFIED (${fix.verification?.reason}): only a verified fix is written ` +
            `out as a passing test. Verify it with more trials: \`crashlab verify ${run.id} --fix ${id} -k 10\`.`
        : `${id} of run ${run.id} has not been verified: run \`crashlab verify ${run.id} --fix ${id}\` first.`,
      { subject: run.id },
    )
  }
  return fix
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
    // The store usually sits under home: the longer path first. Only where the path stands as a path:
    // `/root` in `mysql://root:pw@db` is part of a URL (rewriting it would also hide a password there
    // from the redactor), not the home folder.
    for (const [path, mark] of [...replacements].sort((a, b) => b[0].length - a[0].length)) {
      if (!out.includes(path)) continue
      out = out.replace(new RegExp(`(?<![\\w/.:@-])${escapeRegExp(path)}(?![\\w.:@-])`, 'g'), mark)
    }
    return out
  }
  if (Array.isArray(value)) return value.map((v) => replacePaths(v, replacements))
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, replacePaths(v as JsonValue, replacements)]),
    )
  return value
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

function slug(name: string): string {
  const s = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
  return s || 'run'
}
