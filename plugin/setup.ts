/**
 * The plugin's setup file: Vitest runs it in each worker before every test file. It starts crashlab's
 * MSW interceptor before the test module (and the SDK clients it creates) loads, and gives each test a
 * Session of its own through `aroundEach`, which AsyncLocalStorage carries into everything the test
 * starts, also under `test.concurrent`. After the test it ends the Session (a replay failure the agent
 * swallowed still fails the test) and writes the cassette when the test recorded something (in mode
 * `diverged`, only when the run left its recording).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { afterAll, aroundEach, expect, inject, type TestContext } from 'vitest'
import {
  finishTestSession,
  isLiveTest,
  setCrashlabMeta,
  setTestState,
  type TestState,
} from '../fixtures/index.ts'
import {
  type AgentRun,
  actionAfterRun,
  configStamp,
  DEFAULT_HOSTS,
  FORK_ENV,
  fileCassetteStore,
  guardReplaySockets,
  ledgerMark,
  ledgerSince,
  loadCassette,
  loadConfig,
  markFailed,
  mergeConfig,
  networkFileOf,
  planTest,
  preloadMsw,
  prepareAgentRun,
  type RecordMode,
  type Run,
  replayFailureOf,
  runInSession,
  Session,
  sessionTag,
  shouldWriteCassette,
  startAgentRun,
  startInterceptor,
  type TestOverride,
  trustChecksOptions,
  writeCassette,
} from '../src/internal.ts'
// Registers the crashlab matchers (toPassChecks, toMatchAgentCase, ...) in every worker.
import '../matchers/index.ts'
import { openMcpOutsideTests } from './internal/mcp-outside-tests.ts'
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
  // msw is loaded when the interceptor starts (src/interceptor/internal/msw-modules.ts); loading it
  // concurrently first is faster than the interceptor's synchronous load.
  await preloadMsw()
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
// Validated by the plugin already when it has not changed since (`configStamp`): then neither the file
// nor the checks layered from it and the plugin's options load the schema (and zod) again here.
const unchanged =
  config.configPath === undefined ||
  (config.configStamp !== undefined && configStamp(config.configPath) === config.configStamp)
const fileConfig = config.configPath
  ? (await loadConfig({ file: config.configPath, ...(unchanged && { validated: config.configStamp }) }))
      .config
  : {}
if (unchanged) trustChecksOptions(mergeConfig(fileConfig, { checks: config.checks }).checks)
const { redactor, matching } = await loadSessionOptions(config, fileConfig.redaction)
// Where this worker's cassettes live (the plugin's `cassetteDir`): the one owner of cassette paths and files.
const store = fileCassetteStore({ cassetteDir: config.cassetteDir, redactor })

// MCP (docs/mcp.md): stdio servers are tapped, and MCP outside any test's Session (a client connected at
// module level or in `beforeAll`) goes to this test file's MCP cassette. Closed after the file's own
// `afterAll` (hooks run in reverse order), so its client's last messages are seen.
const mcp = openMcpOutsideTests({
  testFile: expect.getState().testPath,
  mode: config.mode,
  store,
  redactor,
  matching,
})
afterAll(() => mcp.close())

// Vitest reads which fixtures a hook wants from its destructured parameter: `{ task }` asks for none.
aroundEach(async (runTest, { task }) => {
  const state = await openTest(task, config.mode)
  setTestState(task, state)
  try {
    await runInSession(state.session, runTest)
  } finally {
    await closeTest(state, task)
  }
})

async function openTest(task: Task, mode: RecordMode): Promise<TestState> {
  const name = task.fullTestName ?? task.name
  const cassettePath = store.cassettePath(task.file.filepath, name)
  // The agent-run harness's first steps (src/harness): the config file's checks and prices under the
  // plugin's options, as runtime checks of this test's own.
  const { checks } = await prepareAgentRun({
    loadedConfig: fileConfig,
    checks: config.checks,
    prices: config.prices,
    redactor,
  })
  // The record-mode decision (src/record-modes): `off` and live() tests run live, the test that
  // `crashlab replay`/`crashlab fork` targets replays the given run, the others follow their mode.
  let replayed: ReturnType<typeof replayOverride>
  const plan = planTest({
    mode,
    live: isLiveTest(task),
    override: () => {
      replayed = replayOverride(name)
      return replayed && { run: replayed.run, path: replayed.path, fork: forkOverride() }
    },
    cassette: {
      path: cassettePath,
      exists: store.exists(cassettePath),
      load: () => store.readCassette(cassettePath).run,
    },
    common: { label: name, redactor, matching, hooks: checks?.hooks, mcp: fileConfig.mcp },
  })
  // The harness opens the test's run on the Session the plan decided (its hooks already hold the runtime
  // checks and a fork's request hook). Its agent is not known yet: agentCase and the agent fixture name
  // it when they run it. It ends by the test's own rule (finishTestSession).
  const testRun = await startAgentRun({
    prepared: { config: fileConfig, checks, redactor },
    session: new Session(plan.session),
    finishRule: 'test',
    end: (result) => finishTestSession(state, name, result),
  })
  const state: TestState = {
    mode,
    action: plan.action,
    cassettePath: plan.cassettePath ?? cassettePath,
    cassetteMissing: plan.cassetteMissing,
    agentRuns: 0,
    checks,
    session: testRun.session,
  }
  testRuns.set(state, testRun)
  if (replayed) replayOutputs.set(state, replayed.out)
  return state
}

/** Each test's run, as the harness opened it. */
const testRuns = new WeakMap<TestState, AgentRun>()

async function closeTest(state: TestState, task: Task): Promise<void> {
  let written = false
  try {
    // agentCase and the agent fixture finish the Session themselves; a plain test leaves it to us.
    if (!state.session.isFinished) state.run = (await testRuns.get(state)?.finish())?.run
  } finally {
    // A diverged Session finished by hand (not through finishTestSession) still left its recording.
    state.action = actionAfterRun(state.action, state.session)
    const run = state.run ?? state.session.run
    const replayOut = replayOutputs.get(state)
    if (replayOut) writeReplayed(replayOut, run, state.session)
    if (shouldWriteCassette(state.action, run)) {
      store.writeCassette(state.cassettePath, run)
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
  const { openStore } = await import('../src/on-demand.ts')
  const store = await openStore({ dir: session.storeDir })
  try {
    store.save(run, { tags: [sessionTag(session.id)], redactor })
  } finally {
    store.close()
  }
}

/**
 * The replay hook of `crashlab replay <id>` (src/rerun): with `CRASHLAB_REPLAY_RUN` (a cassette),
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
  const failure = replayFailureOf(session)
  writeCassette(out, failure ? markFailed(run, failure) : run, { redactor })
}

// A fork's Vitest child reads a patch and hooks its requests (below); other workers never load that code.
const forking = process.env[FORK_ENV.at] === undefined ? undefined : await import('../src/on-demand.ts')

/** The fork settings `crashlab fork` of an agentCase run hands the replayed test (FORK_ENV), if any. */
function forkOverride(): TestOverride['fork'] {
  const at = process.env[FORK_ENV.at]
  if (at === undefined || forking === undefined) return undefined
  const { parsePatch, forkRequestHook } = forking
  const patchFile = process.env[FORK_ENV.patch]
  const raw = patchFile ? (JSON.parse(readFileSync(patchFile, 'utf8')) as unknown) : null
  const patch = raw === null ? undefined : parsePatch(raw as object, patchFile)
  const baseUrl = process.env[FORK_ENV.baseUrl]
  return { at: Number(at), onRequest: forkRequestHook({ patch, ...(baseUrl && { baseUrl }) }) }
}
