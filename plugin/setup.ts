/**
 * The plugin's setup file: Vitest runs it in each worker before every test file. It starts crashlab's
 * MSW interceptor before the test module (and the SDK clients it creates) loads, and gives each test a
 * Session of its own through `aroundEach`, which AsyncLocalStorage carries into everything the test
 * starts, also under `test.concurrent`. After the test it ends the Session (a replay failure the agent
 * swallowed still fails the test) and writes the cassette when the test recorded something (in mode
 * `diverged`, only when the run left its recording).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { afterAll, aroundEach, inject, type TestContext } from 'vitest'
import {
  type CrashlabMode,
  finishTestSession,
  isLiveTest,
  setCrashlabMeta,
  setTestState,
  type TestState,
} from '../fixtures/index.ts'
import {
  createRun,
  DEFAULT_HOSTS,
  FORK_ENV,
  forkRequestHook,
  guardReplaySockets,
  ledgerMark,
  ledgerSince,
  loadCassette,
  loadConfig,
  mergeConfig,
  networkFileOf,
  openStore,
  parsePatch,
  type Run,
  RuntimeChecks,
  runInSession,
  Session,
  sessionTag,
  startInterceptor,
  writeCassette,
} from '../src/index.ts'
// Registers the crashlab matchers (toPassChecks, toMatchAgentCase, ...) in every worker.
import '../matchers/index.ts'
import { cassettePathFor } from './cassette-path.ts'
import type { ProvidedCrashlabConfig } from './provided-config.ts'
import { loadSessionOptions } from './session-options.ts'

type Task = TestContext['task']

const config: ProvidedCrashlabConfig = inject('crashlab')

// The replay rule (src/interceptor/replay-network.ts) for this worker: a replay Session's requests and
// connections follow it, and in replay mode (`CI=true`) so do the requests made outside any test's
// Session (a module-level client, a trace exporter's timer, an `afterAll`). A fork's Vitest child runs in
// replay mode too, but goes live: what it sends outside its Session is left alone. Live Sessions (record,
// `live()`, a fork once live) keep their network.
const network = {
  allowHosts: config.allowHosts,
  outsideSession:
    config.mode === 'replay' && process.env[FORK_ENV.at] === undefined
      ? ('replay' as const)
      : ('passthrough' as const),
}
// Counted from here, for `crashlab replay` of a test (written in the last afterAll, after the test file's own).
const networkMark = ledgerMark()
const replayOut = process.env.CRASHLAB_REPLAY_OUT
if (replayOut && process.env.CRASHLAB_REPLAY_RUN) {
  afterAll(() => writeFileSync(networkFileOf(replayOut), JSON.stringify(ledgerSince(networkMark))))
}

if (config.intercept) {
  // One server per worker at a time: closed after this test file, so the next file's handlers read the
  // Session store of its own module graph.
  // The plugin's `hosts` are more hosts, besides the model APIs crashlab knows (the interceptor's own
  // `hosts` option replaces its defaults; the plugin's adds to them, as its docs say).
  const hosts = config.hosts ? [...DEFAULT_HOSTS, ...config.hosts] : undefined
  const interceptor = startInterceptor({ hosts, otherHosts: config.otherHosts, ...network })
  afterAll(() => interceptor.close())
} else {
  // The user's own MSW server (with crashlabHandlers()) starts in a later setup file: the socket guard
  // goes first, below msw's own socket patch.
  const release = guardReplaySockets({ otherHosts: config.otherHosts, ...network })
  afterAll(release)
}

// The plugin's redaction and matching options, with their hook and normalizer modules imported here
// (after the interceptor is up: a module may create an SDK client).
// The project config file (checks, prices, redaction rules), read here the same way the CLI and
// production capture read it; the plugin's own options are nearer, so they win.
const fileConfig = config.configPath ? (await loadConfig({ file: config.configPath })).config : {}
const checksConfig = mergeConfig(fileConfig, { checks: config.checks, prices: config.prices })
const { redactor, matching } = await loadSessionOptions(config, fileConfig.redaction)

// Vitest reads which fixtures a hook wants from its destructured parameter: `{ task }` asks for none.
aroundEach(async (runTest, { task }) => {
  const state = openTest(task, config.mode, config.cassetteDir)
  setTestState(task, state)
  try {
    await runInSession(state.session, runTest)
  } finally {
    await closeTest(state, task)
  }
})

function openTest(task: Task, mode: CrashlabMode, cassetteDir: string | undefined): TestState {
  const name = task.fullTestName ?? task.name
  const cassettePath = cassettePathFor(task.file.filepath, name, cassetteDir)
  const checks = new RuntimeChecks({ checks: checksConfig.checks, prices: checksConfig.prices })
  const base = { mode, cassettePath, agentRuns: 0, cassetteMissing: false, checks }
  const common = { label: name, redactor, matching, hooks: checks.hooks }
  if (mode === 'off' || isLiveTest(task)) {
    // Live calls, kept in memory only: the run is still graded and asserted on, and nothing is written.
    return { ...base, action: 'passthrough', session: new Session({ mode: 'record', ...common }) }
  }
  const replayed = replayOverride(name)
  if (replayed) {
    // `crashlab replay <id>`: this one test replays the given run instead of its own cassette.
    // `crashlab fork <id>` of an agentCase run: the same hook, forked at a step with a patch.
    const forked = forkOverride()
    const session = new Session({
      mode: 'replay',
      recorded: replayed.run,
      ...common,
      ...(forked && { forkAt: forked.at, hooks: { ...checks.hooks, onRequest: forked.onRequest } }),
      cassettePath: replayed.path,
    })
    const state: TestState = { ...base, action: 'replay', cassettePath: replayed.path, session }
    replayOutputs.set(state, replayed.out)
    return state
  }
  const exists = existsSync(cassettePath)
  if (mode === 'all' || ((mode === 'missing' || mode === 'diverged') && !exists)) {
    return { ...base, action: 'record', session: new Session({ mode: 'record', ...common, cassettePath }) }
  }
  if (mode === 'diverged') {
    // Replays up to the first divergence and records from there; `finishTestSession` turns the action
    // into `record` when the run left the recording, and only then is the cassette written.
    const recorded = loadCassette(cassettePath).run
    return {
      ...base,
      action: 'replay',
      session: new Session({ mode: 'replay', onDivergence: 'record', recorded, ...common, cassettePath }),
    }
  }
  // replay: a missing cassette is replayed as an empty recording, so a test that never calls a model
  // passes, and the first call that does fails the test with the command that records it.
  const recorded = exists ? loadCassette(cassettePath).run : createRun({ name: 'run' })
  return {
    ...base,
    action: 'replay',
    cassetteMissing: !exists,
    session: new Session({ mode: 'replay', recorded, ...common, cassettePath }),
  }
}

async function closeTest(state: TestState, task: Task): Promise<void> {
  const name = task.fullTestName ?? task.name
  let written = false
  try {
    // agentCase and the agent fixture finish the Session themselves; a plain test leaves it to us.
    if (!state.session.isFinished) state.run = await finishTestSession(state, name, {})
  } finally {
    // A diverged Session finished by hand (not through finishTestSession) still left its recording.
    if (state.action === 'replay' && state.session.divergedAt !== undefined) state.action = 'record'
    const run = state.run ?? state.session.run
    const replayOut = replayOutputs.get(state)
    if (replayOut) writeReplayed(replayOut, run, state.session)
    if (state.action === 'record' && run.steps.length > 0) {
      writeCassette(state.cassettePath, run, { redactor })
      written = true
    }
    // The plugin's `tasks`: a failed agent run goes to the store, for the session's diagnose and verify tasks.
    if (
      config.session &&
      state.run &&
      (run.outcome === 'fail' || run.status === 'error') &&
      !replayOutputs.has(state)
    ) {
      await saveFailedRun(run, config.session)
    }
    const touched = run.steps.length > 0 || state.session.errors.length > 0
    // A test that ran live (`passthrough`) is counted by the reporter when it opted out with live() or
    // called something; one that called nothing in mode `off` leaves no meta, so the reporter stays quiet.
    if (state.action !== 'passthrough' || touched || isLiveTest(task))
      setCrashlabMeta(task, {
        cassette: {
          path: state.cassettePath,
          action: state.action,
          written,
          replayed: state.action === 'replay' && !state.cassetteMissing,
          missing: state.cassetteMissing && touched,
        },
      })
  }
}

async function saveFailedRun(run: Run, session: { id: string; storeDir: string }): Promise<void> {
  const store = await openStore({ dir: session.storeDir })
  try {
    store.save(run, { tags: [sessionTag(session.id)], redactor })
  } finally {
    store.close()
  }
}

/**
 * The replay hook of `crashlab replay <id>` (src/replay): with `CRASHLAB_REPLAY_RUN` (a cassette),
 * `CRASHLAB_REPLAY_TEST` (a test's full name) and `CRASHLAB_REPLAY_OUT` (a path) set, that test replays
 * the given run instead of its own cassette, and its replayed run is written to the out path (with the
 * replay's failure as the run's error). Every other test runs as usual.
 */
const replayOutputs = new WeakMap<TestState, string>()

function replayOverride(name: string): { run: Run; path: string; out: string } | undefined {
  const path = process.env.CRASHLAB_REPLAY_RUN
  const out = process.env.CRASHLAB_REPLAY_OUT
  if (!path || !out || process.env.CRASHLAB_REPLAY_TEST !== name) return undefined
  return { run: loadCassette(path).run, path, out }
}

function writeReplayed(out: string, run: Run, session: Session): void {
  const failure = session.halted ?? session.errors.find((e) => e.code !== 'E_CAPTURE')
  const written = failure
    ? {
        ...run,
        status: 'error' as const,
        output: null,
        error: { name: failure.name, message: failure.message, code: failure.code },
      }
    : run
  writeCassette(out, written, { redactor })
}

/** The fork settings `crashlab fork` of an agentCase run hands the replayed test (FORK_ENV), if any. */
function forkOverride(): { at: number; onRequest: ReturnType<typeof forkRequestHook> } | undefined {
  const at = process.env[FORK_ENV.at]
  if (at === undefined) return undefined
  const patchFile = process.env[FORK_ENV.patch]
  const raw = patchFile ? (JSON.parse(readFileSync(patchFile, 'utf8')) as unknown) : null
  const patch = raw === null ? undefined : parsePatch(raw as object, patchFile)
  const baseUrl = process.env[FORK_ENV.baseUrl]
  return { at: Number(at), onRequest: forkRequestHook({ patch, ...(baseUrl && { baseUrl }) }) }
}
