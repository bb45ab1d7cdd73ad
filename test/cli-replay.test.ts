import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { installInterceptor, type Run, record } from '../src/index.ts'
import { replayRun } from '../src/rerun/index.ts'
import { openStore, type RunStore } from '../src/store/index.ts'
import { type ScriptedProvider, startScriptedProvider } from '../src/testing/index.ts'
import { BUILT_BIN } from './helpers/built-bin.ts'
import { answerOrder } from './projects/replay/agent.ts'
import { orderModel } from './projects/replay/model.ts'
import { copyProject, removeProject, runFixture } from './projects/run-fixture.ts'

// `crashlab replay`: a run recorded with record(..., { entryPoint }) is started again offline through its
// module, and a run of an agentCase test through Vitest, in a copy of the fixture project
// test/projects/replay (an order bot on the OpenAI SDK against the scripted provider).
const bin = BUILT_BIN
const ENTRY = { kind: 'module', module: './agent.ts', export: 'answerOrder' } as const
const QUESTION = 'Where is my order A17?'

let provider: ScriptedProvider
let project: string
let storeDir: string
let source: Run

function crashlab(args: string[], env: Record<string, string> = {}) {
  const vars: Record<string, string | undefined> = {
    ...process.env,
    NO_COLOR: '1',
    CRASHLAB_DIR: storeDir,
    ...env,
  }
  delete vars.CRASHLAB_CONFIG
  for (const key of Object.keys(vars)) if (key.startsWith('VITEST')) delete vars[key]
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: project, encoding: 'utf8', env: vars })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

async function recordOrder(options: { entryPoint?: typeof ENTRY } = {}): Promise<Run> {
  const interceptor = installInterceptor({ hosts: [provider.url] })
  try {
    const { run, error } = await record('order-bot', answerOrder, {
      input: { question: QUESTION, baseURL: `${provider.url}/v1` },
      config: join(project, 'crashlab.config.ts'),
      store: storeDir,
      oracles: [(r) => /shipped/.test(String(r.output)) || 'the answer does not say the order shipped'],
      ...options,
    })
    if (error) throw error
    return run
  } finally {
    await interceptor.close()
  }
}

function withStore<T>(fn: (store: RunStore) => T): Promise<T> {
  return openStore({ dir: storeDir, config: false }).then((store) => {
    try {
      return fn(store)
    } finally {
      store.close()
    }
  })
}

beforeAll(async () => {
  provider = await startScriptedProvider({ policy: orderModel })
  project = copyProject('replay')
  storeDir = mkdtempSync(join(tmpdir(), 'crashlab-replay-store-'))
  source = await recordOrder({ entryPoint: ENTRY })
})
afterAll(async () => {
  await provider.close()
  removeProject(project)
  rmSync(storeDir, { recursive: true, force: true })
})

describe('replayRun: a module entry point', () => {
  it('was recorded with its entry point, two model calls and a budget finding', () => {
    expect(source.entryPoint).toEqual(ENTRY)
    expect(source.steps.map((s) => s.type)).toEqual(['llm', 'llm'])
    expect(source.output).toBe('Order A17 is shipped on Monday.')
    expect(source.findings.map((f) => f.kind)).toContain('budget')
  })

  it('runs the module again offline: the provider gets no request, and the replay is stored with replayOf', async () => {
    const before = provider.requests.length
    const store = await openStore({ dir: storeDir, config: false })
    try {
      const { run, error, stored } = await replayRun(store.load(source.id), { store, cwd: project })
      expect(error).toBeUndefined()
      expect(provider.requests.length).toBe(before)
      expect(run.id).not.toBe(source.id)
      expect(run.links.replayOf).toBe(source.id)
      expect(run.output).toBe(source.output)
      expect(run.steps.map((s) => s.type)).toEqual(['llm', 'llm'])
      expect(run.entryPoint).toEqual(ENTRY)
      expect(run.findings.map((f) => f.kind)).toEqual(source.findings.map((f) => f.kind))
      expect(run.checks).toEqual(source.checks)
      expect(stored?.replayOf).toBe(source.id)
      expect(store.get(run.id).replayOf).toBe(source.id)
    } finally {
      store.close()
    }
  })
})

describe('crashlab replay', () => {
  it('replays a stored run through its module and stores the replay', async () => {
    const r = crashlab(['replay', source.id])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(`replaying run ${source.id} (order-bot) through ./agent.ts#answerOrder`)
    expect(r.stdout).toContain('replayed: 2 steps served from the recording')
    const id = /stored as (\S+) \(replay of/.exec(r.stdout)?.[1]
    expect(id).toBeDefined()
    const replay = await withStore((store) => store.load(id as string))
    expect(replay.links.replayOf).toBe(source.id)
    expect(replay.status).toBe('ok')
  })

  it('exits 1 with the divergence, naming the step, when the agent now asks something else', async () => {
    const before = await withStore((store) => store.list().length)
    const r = crashlab(['replay', source.id], { FIXTURE_INPUT_SUFFIX: ' Quickly please.' })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('replay failed')
    expect(r.stderr).toMatch(/diverged at step 0/)
    expect(r.stderr).toContain(`runs/${source.id}.cassette.json`)
    expect(r.stderr).toContain('Quickly please.')
    // The failed replay is a run too: stored, as an error that names the divergence.
    const runs = await withStore((store) => store.list())
    expect(runs).toHaveLength(before + 1)
    expect(runs[0]).toMatchObject({ replayOf: source.id, status: 'error' })
    const failed = await withStore((store) => store.load(runs[0]!.id))
    expect(failed.error?.code).toBe('E_DIVERGENCE')
  })

  it('a run with no entry point: a clear message naming how to give one', async () => {
    const bare = await recordOrder()
    expect(bare.entryPoint).toBeNull()
    const r = crashlab(['replay', bare.id])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(`run ${bare.id} (order-bot) has no entry point`)
    expect(r.stderr).toContain("entryPoint: { kind: 'module'")
    expect(r.stderr).toContain('agentCase')
    expect(r.stderr).toContain('E_REPLAY_NO_ENTRY')
  })

  it('--mock writes the mock replay of an .agentcase, which validates', () => {
    const exported = crashlab(['export', source.id, '-o', 'order.agentcase'])
    expect(exported.code).toBe(0)
    const r = crashlab(['replay', 'order.agentcase', '--mock', '-o', 'order-replay.agentcase'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('wrote the mock replay of order.agentcase')
    const written = JSON.parse(readFileSync(join(project, 'order-replay.agentcase'), 'utf8')) as {
      replay: { mode: string; source_case_id: string }
      case_id: string
    }
    const original = JSON.parse(readFileSync(join(project, 'order.agentcase'), 'utf8')) as { case_id: string }
    expect(written.replay.mode).toBe('mock')
    expect(written.replay.source_case_id).toBe(original.case_id)
    expect(crashlab(['validate', 'order-replay.agentcase']).code).toBe(0)
    const usage = crashlab(['replay', 'order.agentcase', '--mock'])
    expect(usage.code).toBe(2)
    expect(usage.stderr).toContain('needs --output')
  })
})

describe('crashlab replay: an agentCase test entry point', () => {
  let testRun: Run

  beforeAll(async () => {
    // Record the test's cassette with the fixture project's Vitest, then take the run into the store.
    const recorded = await runFixture(project, ['run', 'order.spec.ts'], { env: { CRASHLAB_RECORD: 'all' } })
    expect(recorded.code, recorded.output).toBe(0)
    const folder = join(project, '__cassettes__', 'order.spec.ts')
    const cassette = join(folder, readdirSync(folder).find((n) => n.endsWith('.cassette.json')) as string)
    expect(existsSync(cassette)).toBe(true)
    const imported = crashlab(['import', cassette])
    expect(imported.code, imported.stderr).toBe(0)
    testRun = await withStore((store) => store.load('last'))
  }, 120_000)

  it('replays that one test from the stored run, through Vitest, and stores the replay', async () => {
    expect(testRun.entryPoint).toEqual({ kind: 'test', file: 'order.spec.ts', test: 'orders > where is A17' })
    const r = crashlab(['replay', testRun.id])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('through test "orders > where is A17" in order.spec.ts')
    const id = /stored as (\S+) \(replay of/.exec(r.stdout)?.[1] as string
    const replay = await withStore((store) => store.load(id))
    expect(replay.links.replayOf).toBe(testRun.id)
    expect(replay.entryPoint).toEqual(testRun.entryPoint)
    expect(replay.steps.map((s) => s.type)).toEqual(testRun.steps.map((s) => s.type))
  })

  it('crashlab fork forks it too: that one test, replayed up to the fork step and live from there with the patch', async () => {
    expect(testRun.steps.map((st) => st.type)).toEqual(['llm', 'llm'])
    const r = crashlab(['fork', testRun.id, '--at', '1', '--system-append', 'Answer in French.'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const id = /stored as (\S+) \(fork of/.exec(r.stdout)?.[1] as string
    const forked = await withStore((store) => store.load(id))
    expect(forked.links).toMatchObject({ forkedFrom: testRun.id, forkStep: 1 })
    expect(forked.links.replayOf).toBeUndefined()
    // The prefix is the recording; the live model call carries the patch.
    expect(forked.steps.slice(0, 1)).toEqual(testRun.steps.slice(0, 1))
    const live = forked.steps[1]
    expect(live?.type).toBe('llm')
    const system = live?.type === 'llm' ? live.request.normalized?.system : undefined
    expect(JSON.stringify(system)).toContain('Answer in French.')
  })

  it('exits 1 with the divergence when the test no longer replays the stored run', () => {
    const r = crashlab(['replay', testRun.id], { FIXTURE_INPUT_SUFFIX: ' Quickly please.' })
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/replay of test "orders > where is A17" \(cassette .*\) diverged at step 0/)
    // The child replayed a temporary copy: the message names the stored run's cassette instead.
    expect(r.stderr).toContain(`runs/${testRun.id}.cassette.json`)
    expect(r.stderr).not.toContain('source.cassette.json')
  })
})
