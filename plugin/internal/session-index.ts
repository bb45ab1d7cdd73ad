import { existsSync } from 'node:fs'
import { isAbsolute, relative, sep } from 'node:path'
import { ulid } from 'ulid'
import type { TestModule } from 'vitest/node'
import type { CrashlabTaskMeta } from '../../fixtures/index.ts'
import {
  type CrashCellsInput,
  DEFAULT_KEEP_SESSIONS,
  loadConfig,
  type TestRunInput,
} from '../../src/internal.ts'

/**
 * Where and how the runs of a Vitest session are indexed: the project root (test files are named
 * against it, the store and the config file are found from it), the config file, and how many sessions
 * to keep (the plugin's option; else the config file's `store.keepSessions`; else 20; 0 turns it off).
 *
 * @example
 * const where: SessionIndexOptions = { root: '/repo', config: undefined, keepSessions: 5 }
 */
export interface SessionIndexOptions {
  root: string
  config?: string | false
  keepSessions?: number
}

/**
 * Indexes the runs of one Vitest session in the run store, from the main process: each test's
 * cassette (as `task.meta.crashlab.cassette` names it) becomes a run of the store, tagged with the
 * session, the test file and the test's full name, so that `crashlab ls --session last`, and every
 * command given a cassette path or a test's name, reach it. The Vitest child of `crashlab replay` and
 * `crashlab fork` indexes nothing (its test is already in the store). Never fails the test run:
 * returns a warning line to print instead, or undefined.
 *
 * @example
 * const warning = await indexSession(testModules, { root: vitest.config.root }, startedAt)
 * if (warning) logger.warn(warning)
 */
export async function indexSession(
  testModules: ReadonlyArray<TestModule>,
  options: SessionIndexOptions,
  startedAt: Date = new Date(),
): Promise<string | undefined> {
  if (process.env.CRASHLAB_REPLAY_RUN) return undefined
  const tests = testsOf(testModules, options.root)
  const crashes = crashCellsOf(testModules)
  if (tests.length === 0 && crashes.length === 0) return undefined
  let dir = 'the run store'
  try {
    const found = await loadConfig({ cwd: options.root, file: options.config })
    const keep = options.keepSessions ?? found.config.store?.keepSessions ?? DEFAULT_KEEP_SESSIONS
    if (keep === 0) return undefined
    const { openStore, resolveStoreDir } = await import('../../src/on-demand.ts')
    dir = await resolveStoreDir({
      cwd: options.root,
      ...(options.config !== undefined && { config: options.config }),
    })
    const store = await openStore({ dir })
    try {
      const session = { id: ulid(), startedAt: startedAt.toISOString(), root: options.root }
      const { skipped } = store.indexTestSession(session, tests, { keep, crashes })
      if (skipped.length === 0) return undefined
      const names = skipped.slice(0, 3).map((s) => `${s.cassette} (${s.reason.split('\n')[0]})`)
      return (
        `[crashlab] ${skipped.length} cassette(s) of this test run could not be read, so \`crashlab ls\` does not list them: ` +
        `${names.join('; ')}${skipped.length > 3 ? '; …' : ''}. Check them with \`crashlab validate <file>\`.`
      )
    } finally {
      store.close()
    }
  } catch (error) {
    return (
      `[crashlab] the runs of this test run were not indexed in ${dir}, so \`crashlab ls --session last\` ` +
      `does not list them: ${(error as Error).message.replace(/^\[crashlab\] /, '')}`
    )
  }
}

/** The tests that own a cassette on disk (recorded or replayed; not live ones), in the order they ran. */
function testsOf(testModules: ReadonlyArray<TestModule>, root: string): TestRunInput[] {
  const tests: TestRunInput[] = []
  for (const module of testModules) {
    for (const test of module.children.allTests()) {
      const cassette = (test.meta() as { crashlab?: CrashlabTaskMeta }).crashlab?.cassette
      if (!cassette || cassette.action === 'passthrough' || !existsSync(cassette.path)) continue
      tests.push({
        cassette: cassette.path,
        file: fileName(module.moduleId, root),
        name: test.fullName,
        state: test.result().state,
      })
    }
  }
  return tests
}

/**
 * The cells each crash test (`crashTest`) ran, grouped by the cassette they replayed and its test, in
 * the order they were declared: what `crashlab report <run> --html` draws as the run's crash grid.
 */
function crashCellsOf(testModules: ReadonlyArray<TestModule>): CrashCellsInput[] {
  const groups = new Map<string, CrashCellsInput & { cells: unknown[] }>()
  for (const module of testModules) {
    for (const test of module.children.allTests()) {
      const crash = (test.meta() as { crashlab?: CrashlabTaskMeta }).crashlab?.crash
      if (!crash || 'missing' in crash || !existsSync(crash.cassette)) continue
      const key = `${crash.cassette}\u0000${crash.test}`
      const group = groups.get(key) ?? { cassette: crash.cassette, test: crash.test, cells: [] }
      const { step, stepType, stepName, fault, outcome, detail } = crash
      group.cells.push({ step, stepType, stepName, fault, outcome, detail })
      groups.set(key, group)
    }
  }
  return [...groups.values()]
}

/** The test file as Vitest prints it: relative to the root, with forward slashes. */
function fileName(moduleId: string, root: string): string {
  const rel = isAbsolute(moduleId) ? relative(root, moduleId) : moduleId
  return rel.split(sep).join('/')
}
