import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadCassette, type Run } from '../src/index.ts'
import { runBinSync } from './helpers/built-bin.ts'
import { copyProject, removeProject, runFixture } from './projects/run-fixture.ts'

// `crashlab export-test` of agentCase runs, through the built bin, in a copy of test/projects/replay (an
// order bot on the OpenAI SDK against a scripted provider): the exported test runs the agent's code again
// against the cassette, so a change of that code flips it; a run whose agent cannot be run again is refused.
let project: string
let storeDir: string
let imported: Run
let inline: Run

// A failing agentCase: the order bot imported from its module, and the same bot as an inline function.
const FAILING_SPEC = `import { afterAll, describe, test } from 'vitest'
import { agentCase } from '../../../plugin/index.ts'
import { startScriptedProvider } from '../../../src/testing/index.ts'
import { answerOrder } from './agent.ts'
import { orderModel } from './model.ts'

const provider = await startScriptedProvider({ policy: orderModel })
afterAll(() => provider.close())

const saysShipped = (r: { output: unknown }) => /shipped/.test(String(r.output)) || 'the answer does not say the order shipped'
const input = { question: 'Where is my order A18?', baseURL: \`\${provider.url}/v1\` }

describe('lost orders', () => {
  test('imported agent', agentCase(answerOrder, { agent: 'order-bot', input, oracles: [saysShipped] }))
  test('inline agent', agentCase((i: typeof input) => answerOrder(i), { agent: 'inline-bot', input, oracles: [saysShipped] }))
})
`

function crashlab(...args: string[]) {
  return runBinSync(project, { CRASHLAB_DIR: storeDir }, ...args)
}

function cassetteOf(test: string): string {
  const folder = join(project, '__cassettes__', 'lost.spec.ts')
  const name = readdirSync(folder).find((n) => n.endsWith(`${test}.cassette.json`))
  if (!name) throw new Error(`no cassette for ${test} in ${readdirSync(folder).join(', ')}`)
  return join(folder, name)
}

function importRun(test: string): Run {
  const r = crashlab('import', cassetteOf(test))
  expect(r.code, r.stderr).toBe(0)
  const id = /\b([0-9A-HJKMNP-TV-Z]{26})\b/.exec(r.stdout)?.[1]
  expect(id, r.stdout).toBeDefined()
  return loadCassette(join(storeDir, 'runs', `${id}.cassette.json`)).run
}

/** Runs the exported tests with `crashlab vitest --exported`; `agent` replaces the agent's module first. */
async function runExported(agent?: string) {
  const file = join(project, 'agent.ts')
  const original = readFileSync(file, 'utf8')
  if (agent) writeFileSync(file, agent)
  try {
    return await runFixture(project, ['run', '--exported'], { bin: 'crashlab' })
  } finally {
    writeFileSync(file, original)
  }
}

// The agent "fixed": it now knows order A18 shipped, so the tool result it sends the model differs.
const fixedAgent = (text: string) => text.replace("A18: 'lost in transit'", "A18: 'shipped on Tuesday'")

beforeAll(async () => {
  project = copyProject('replay')
  storeDir = mkdtempSync(join(tmpdir(), 'crashlab-export-rerun-'))
  writeFileSync(join(project, 'lost.spec.ts'), FAILING_SPEC)
  const recorded = await runFixture(project, ['run', 'lost.spec.ts'], { env: { CRASHLAB_RECORD: 'all' } })
  // Both tests fail their oracle: the order is lost.
  expect(recorded.code, recorded.output).toBe(1)
  expect(recorded.output).toContain('the answer does not say the order shipped')
  imported = importRun('imported agent')
  inline = importRun('inline agent')
}, 120_000)
afterAll(() => {
  removeProject(project)
  rmSync(storeDir, { recursive: true, force: true })
})

describe('export-test of an agentCase run', () => {
  it('the run records where its agent function came from; an inline function records nothing', () => {
    expect(imported.entryPoint).toEqual({
      kind: 'test',
      file: 'lost.spec.ts',
      test: 'lost orders > imported agent',
    })
    expect(imported.metadata.agentOrigin).toEqual({ module: './agent.ts', export: 'answerOrder' })
    expect(imported.outcome).toBe('fail')
    expect(inline.metadata.agentOrigin).toBeUndefined()
  })

  it('writes a test that runs that function again: it passes as recorded, and flips when the agent changes', async () => {
    const r = crashlab('export-test', imported.id, '-o', 'regressions')
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('runs the agent ./agent.ts#answerOrder again')
    const passing = await runExported()
    expect(passing.code, passing.output).toBe(0)
    expect(passing.output).toMatch(/Tests\s+1 passed \(1\)/)
    // The agent's code is what the test runs: fixed, it no longer does what the failing run did.
    const flipped = await runExported(fixedAgent(readFileSync(join(project, 'agent.ts'), 'utf8')))
    expect(flipped.code, flipped.output).toBe(1)
    expect(flipped.output).toMatch(/Tests\s+1 failed \(1\)/)
    expect(flipped.output).toMatch(/diverged at step 1/)
    expect(flipped.output).toContain('shipped on Tuesday')
  }, 120_000)

  it('refuses a run of an inline agent (exit 2), naming the test that guards it, and writes nothing', () => {
    const r = crashlab('export-test', inline.id, '-o', 'refused')
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(
      `run ${inline.id} (inline-bot) cannot be exported as a test that runs its agent again`,
    )
    expect(r.stderr).toContain('the test "lost orders > inline agent" (lost.spec.ts)')
    expect(r.stderr).toContain('--entry <module>#<export>')
    expect(r.stderr).toContain('E_EXPORT_NO_AGENT')
    expect(r.stderr).not.toMatch(/\n\s+at /)
    expect(existsSync(join(project, 'refused'))).toBe(false)
  })

  it('--entry names the agent for it: the written test runs that function, and flips too', async () => {
    rmSync(join(project, 'regressions'), { recursive: true, force: true })
    const bad = crashlab('export-test', inline.id, '-o', 'regressions', '--entry', './agent.ts')
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('<module>#<export>')
    const r = crashlab('export-test', inline.id, '-o', 'regressions', '--entry', './agent.ts#answerOrder')
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const passing = await runExported()
    expect(passing.code, passing.output).toBe(0)
    const flipped = await runExported(fixedAgent(readFileSync(join(project, 'agent.ts'), 'utf8')))
    expect(flipped.code, flipped.output).toBe(1)
    expect(flipped.output).toMatch(/diverged at step 1/)
  }, 120_000)

  it('refuses a run with no entry point at all (an imported one), naming --entry', () => {
    const doc = JSON.parse(readFileSync(cassetteOf('inline agent'), 'utf8'))
    doc.run.entryPoint = null
    const file = join(project, 'bare.cassette.json')
    writeFileSync(file, JSON.stringify(doc))
    const added = crashlab('import', file)
    expect(added.code, added.stderr).toBe(0)
    const id = /\b([0-9A-HJKMNP-TV-Z]{26})\b/.exec(added.stdout)?.[1] as string
    const r = crashlab('export-test', id, '-o', 'bare')
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('it has no entry point')
    expect(r.stderr).toContain('E_EXPORT_NO_AGENT')
  })
})
