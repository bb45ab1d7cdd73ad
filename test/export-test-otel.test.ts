import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runBin, runBinSync } from './helpers/built-bin.ts'
import { tracedOrderBot } from './helpers/traced-order-bot.ts'
import { copyProject, removeProject, runFixture } from './projects/run-fixture.ts'

// From a production trace to a regression test, through the built bin: the order bot (an AI SDK agent)
// traced by the AI SDK's OpenTelemetry integration, the trace written as OTLP JSON, `crashlab import`,
// `crashlab export-test --entry`, and the exported test run by the project's Vitest with the crashlab
// plugin: the agent runs again offline against the trace, and a change of its prompt fails the test.
let project: string
let storeDir: string
let id: string

const crashlab = (...args: string[]) => runBinSync(project, { CRASHLAB_DIR: storeDir }, ...args)

async function runExported(env: Record<string, string> = {}) {
  return runFixture(project, ['run', '--exported'], { bin: 'crashlab', env })
}

beforeAll(async () => {
  project = copyProject('replay')
  storeDir = mkdtempSync(join(tmpdir(), 'crashlab-export-otel-'))
  cpSync(
    resolve(import.meta.dirname, 'fixtures', 'otel-replay', 'order-bot.ts'),
    join(project, 'order-bot.ts'),
  )
  const { otlp } = await tracedOrderBot('Where is my order A17?')
  delete process.env.ORDER_BOT_BASE_URL
  writeFileSync(join(project, 'trace.json'), otlp)
  const imported = crashlab('import', 'trace.json')
  expect(imported.stderr).toBe('')
  expect(imported.code).toBe(0)
  id = /\bas (\w{26})\b/.exec(imported.stdout)?.[1] ?? ''
  expect(id, imported.stdout).not.toBe('')
}, 120_000)
afterAll(() => {
  removeProject(project)
  rmSync(storeDir, { recursive: true, force: true })
})

describe('replay of a run imported from a trace', () => {
  it('needs the agent named (a trace names no module); with --entry it runs offline, faithful', async () => {
    const refused = crashlab('replay', id)
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('E_REPLAY_NO_ENTRY')
    expect(refused.stderr).toContain('--entry')
    const r = await runBin(project, { CRASHLAB_DIR: storeDir }, [
      'replay',
      id,
      '--entry',
      './order-bot.ts#orderBot',
    ])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('through ./order-bot.ts#orderBot')
    expect(r.stdout).toContain('faithful replay')
    expect(r.stdout).toMatch(/replayed: 3 steps served from the recording, nothing sent/)
  }, 60_000)
})

describe('export-test of a run imported from a trace', () => {
  it('refuses without --entry (a trace names no module), then writes a test that runs the named agent with the recorded input', () => {
    const refused = crashlab('export-test', id, '-o', 'regressions')
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('E_EXPORT_NO_AGENT')
    expect(refused.stderr).toContain('--entry <module>#<export>')
    const r = crashlab('export-test', id, '-o', 'regressions', '--entry', './order-bot.ts#orderBot')
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('runs the agent ./order-bot.ts#orderBot again')
    const folder = join(project, 'regressions', '__cassettes__')
    const [cassette] = readdirSync(folder)
    const written = JSON.parse(readFileSync(join(folder, cassette!), 'utf8')) as {
      run: { input: unknown; metadata: { otelImport?: unknown } }
    }
    expect(written.run.input).toBe('Where is my order A17?')
    expect(written.run.metadata.otelImport).toBeDefined()
  })

  it('the exported test passes offline (no provider runs), and fails when the agent asks otherwise', async () => {
    const passing = await runExported()
    expect(passing.code, passing.output).toBe(0)
    expect(passing.output).toMatch(/Tests\s+1 passed \(1\)/)
    const changed = await runExported({
      ORDER_BOT_SYSTEM: 'Answer questions about orders. Never look orders up.',
    })
    expect(changed.code, changed.output).toBe(1)
    expect(changed.output).toMatch(/diverged at step 0/)
    expect(changed.output).toContain('Never look orders up')
  }, 120_000)
})
