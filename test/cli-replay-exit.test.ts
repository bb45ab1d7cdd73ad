import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { installInterceptor, type Run, record } from '../src/index.ts'
import { openStore } from '../src/store/index.ts'
import { type ScriptedProvider, startScriptedProvider } from '../src/testing/index.ts'
import { runBin } from './helpers/built-bin.ts'
import { orderModel } from './projects/replay/model.ts'
import { copyProject, removeProject, runFixture } from './projects/run-fixture.ts'

// `crashlab replay` of failing runs, through the built bin, in a copy of test/projects/replay: a replay
// that did what the run did is faithful (exit 0, stored with status ok) whatever its outcome, and its
// outcome (fail here) is shown apart; a divergence exits 1; input that cannot be replayed exits 2.
let provider: ScriptedProvider
let project: string
let storeDir: string
let failingTest: Run
let threw: Run

// An agentCase test whose oracle fails: order A18 is lost.
const LOST_SPEC = `import { afterAll, test } from 'vitest'
import { agentCase } from '../../../plugin/index.ts'
import { startScriptedProvider } from '../../../src/testing/index.ts'
import { answerOrder } from './agent.ts'
import { orderModel } from './model.ts'

const provider = await startScriptedProvider({ policy: orderModel })
afterAll(() => provider.close())

test('lost order', agentCase(answerOrder, {
  agent: 'order-bot',
  input: { question: 'Where is my order A18?', baseURL: \`\${provider.url}/v1\` },
  oracles: [(r) => /shipped/.test(String(r.output)) || 'the answer does not say the order shipped'],
}))
`

// A module agent that throws when the order did not ship.
const STRICT_AGENT = `import { answerOrder, type OrderQuestion } from './agent.ts'

export async function answerOrThrow(input: OrderQuestion): Promise<string> {
  const answer = await answerOrder(input)
  if (!answer.includes('shipped')) throw new Error(\`not shipped: \${answer}\`)
  return answer
}
`

function crashlab(args: string[], env: Record<string, string> = {}) {
  return runBin(project, { CRASHLAB_DIR: storeDir, ...env }, args)
}

async function stored(id: string): Promise<Run> {
  const store = await openStore({ dir: storeDir, config: false })
  try {
    return store.load(id)
  } finally {
    store.close()
  }
}

function storedId(stdout: string): string {
  const id = /stored as (\S+) \(replay of/.exec(stdout)?.[1]
  expect(id, stdout).toBeDefined()
  return id as string
}

beforeAll(async () => {
  provider = await startScriptedProvider({ policy: orderModel })
  project = copyProject('replay')
  storeDir = mkdtempSync(join(tmpdir(), 'crashlab-replay-exit-'))
  writeFileSync(join(project, 'lost.spec.ts'), LOST_SPEC)
  writeFileSync(join(project, 'strict.ts'), STRICT_AGENT)
  const recorded = await runFixture(project, ['run', 'lost.spec.ts'], { env: { CRASHLAB_RECORD: 'all' } })
  expect(recorded.code, recorded.output).toBe(1)
  const folder = join(project, '__cassettes__', 'lost.spec.ts')
  const cassette = join(folder, readdirSync(folder)[0] as string)
  const imported = await crashlab(['import', cassette])
  expect(imported.code, imported.stderr).toBe(0)
  failingTest = await stored('last')
  const { answerOrThrow } = (await import(join(project, 'strict.ts'))) as {
    answerOrThrow: (i: { question: string; baseURL: string }) => Promise<string>
  }
  const interceptor = installInterceptor({ hosts: [provider.url] })
  try {
    const result = await record('strict-bot', answerOrThrow, {
      input: { question: 'Where is my order A18?', baseURL: `${provider.url}/v1` },
      entryPoint: { kind: 'module', module: './strict.ts', export: 'answerOrThrow' },
      config: false,
      store: storeDir,
    })
    threw = result.run
  } finally {
    await interceptor.close()
  }
}, 120_000)
afterAll(async () => {
  await provider.close()
  removeProject(project)
  rmSync(storeDir, { recursive: true, force: true })
})

describe('crashlab replay: exit codes', () => {
  it('the sources failed: a test whose oracle failed, an agent that threw', () => {
    expect(failingTest.outcome).toBe('fail')
    expect(failingTest.entryPoint?.kind).toBe('test')
    expect(threw.status).toBe('error')
  })

  it('a faithful replay of a failing test exits 0, says so, and is stored as status ok, outcome fail', async () => {
    const r = await crashlab(['replay', failingTest.id])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).not.toContain('replay failed')
    expect(r.stdout).toContain('replayed: 2 steps served from the recording')
    expect(r.stdout).toMatch(/faithful replay · outcome fail \(.*\), as recorded/)
    const replay = await stored(storedId(r.stdout))
    expect(replay.links.replayOf).toBe(failingTest.id)
    expect(replay.status).toBe('ok')
    expect(replay.outcome).toBe('fail')
  }, 120_000)

  it('--expect-pass exits 1 on that failing outcome', async () => {
    const r = await crashlab(['replay', failingTest.id, '--expect-pass'])
    expect(r.code, r.stderr).toBe(1)
    expect(r.stdout).toContain('faithful replay · outcome fail')
  }, 120_000)

  it('a faithful replay of a module run whose agent threw exits 0 with outcome fail', async () => {
    const r = await crashlab(['replay', threw.id])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('the agent threw again, as recorded: not shipped')
    const replay = await stored(storedId(r.stdout))
    expect(replay).toMatchObject({ status: 'ok', outcome: 'fail' })
  }, 120_000)

  it('a divergence exits 1, stored as status error', async () => {
    const r = await crashlab(['replay', failingTest.id], { FIXTURE_INPUT_SUFFIX: ' Quickly please.' })
    expect(r.code, r.stderr).toBe(1)
    expect(r.stderr).toMatch(/replay failed \(not faithful\): .*diverged at step 0/)
    const replay = await stored(storedId(r.stdout))
    expect(replay.status).toBe('error')
    expect(replay.error?.code).toBe('E_DIVERGENCE')
  }, 120_000)

  it('bad input exits 2: an unknown run, a run with no entry point, a misplaced flag', async () => {
    const unknown = await crashlab(['replay', '01ZZZZZZZZZZZZZZZZZZZZZZZZ'])
    expect(unknown.code, unknown.stderr).toBe(2)
    expect(unknown.stderr).toContain('E_RUN_NOT_FOUND')
    const interceptor = installInterceptor({ hosts: [provider.url] })
    let bare: Run
    try {
      const { answerOrder } = await import('./projects/replay/agent.ts')
      bare = (
        await record('bare-bot', answerOrder, {
          input: { question: 'Where is my order A17?', baseURL: `${provider.url}/v1` },
          config: false,
          store: storeDir,
        })
      ).run
    } finally {
      await interceptor.close()
    }
    const noEntry = await crashlab(['replay', bare.id])
    expect(noEntry.code, noEntry.stderr).toBe(2)
    expect(noEntry.stderr).toContain('E_REPLAY_NO_ENTRY')
    const usage = await crashlab(['replay', bare.id, '-o', 'x.agentcase'])
    expect(usage.code, usage.stderr).toBe(2)
    expect(usage.stderr).toContain('E_CLI_USAGE')
  }, 120_000)
})
