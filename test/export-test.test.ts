import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { exportedFilter } from '../src/cli/commands/vitest.ts'
import { createRun, installInterceptor, loadCassette, type Run, record } from '../src/index.ts'
import { exportTest } from '../src/rerun/index.ts'
import { type ScriptedProvider, startScriptedProvider } from '../src/testing/index.ts'
import { BUILT_BIN } from './helpers/built-bin.ts'
import { answerOrder } from './projects/replay/agent.ts'
import { orderModel } from './projects/replay/model.ts'
import { copyProject, removeProject, runFixture } from './projects/run-fixture.ts'

// `crashlab export-test`: a stored run becomes a Vitest test plus its cassette, run by a real Vitest in a
// copy of test/projects/replay (whose config maps 'crashlab/vitest' to this repository's plugin).
const bin = BUILT_BIN

let provider: ScriptedProvider
let project: string
let storeDir: string
let source: Run

function crashlab(args: string[]) {
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1', CRASHLAB_DIR: storeDir }
  delete env.CRASHLAB_CONFIG
  for (const key of Object.keys(env)) if (key.startsWith('VITEST')) delete env[key]
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: project, encoding: 'utf8', env })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

beforeAll(async () => {
  provider = await startScriptedProvider({ policy: orderModel })
  project = copyProject('replay')
  storeDir = mkdtempSync(join(tmpdir(), 'crashlab-export-store-'))
  const interceptor = installInterceptor({ hosts: [provider.url] })
  try {
    const recorded = await record('order-bot', answerOrder, {
      input: { question: 'Where is my order A17?', baseURL: `${provider.url}/v1` },
      entryPoint: { kind: 'module', module: './agent.ts', export: 'answerOrder' },
      config: join(project, 'crashlab.config.ts'),
      store: storeDir,
      oracles: [
        function saysShipped(r) {
          return /shipped/.test(String(r.output)) || 'the answer does not say the order shipped'
        },
      ],
    })
    source = recorded.run
  } finally {
    await interceptor.close()
  }
})
afterAll(async () => {
  await provider.close()
  removeProject(project)
  rmSync(storeDir, { recursive: true, force: true })
})

describe('crashlab export-test', () => {
  let testFile: string
  let cassette: string

  it('writes a test file and its cassette that assert the checks and findings', () => {
    expect(source.checks).toEqual([{ name: 'saysShipped', passed: true }])
    expect(source.findings.map((f) => f.kind)).toEqual(['budget'])
    const r = crashlab(['export-test', source.id, '-o', 'regressions'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const base = `order-bot-${source.id.toLowerCase()}`
    expect(r.stdout).toContain(`regressions/${base}.crashlab.test.ts`)
    expect(r.stdout).toContain(`regressions/__cassettes__/${base}.cassette.json (redacted)`)
    testFile = join(project, 'regressions', `${base}.crashlab.test.ts`)
    cassette = join(project, 'regressions', '__cassettes__', `${base}.cassette.json`)
    const text = readFileSync(testFile, 'utf8')
    expect(text).toContain("from 'crashlab/vitest'")
    expect(text).toContain("describe('crashlab:exported'")
    expect(text).toContain(
      `crashlabReplay('./__cassettes__/${base}.cassette.json', { store: crashlabStore })`,
    )
    expect(text).toContain('"name": "saysShipped"')
    expect(text).toContain("expect(run).toHaveFinding('budget')")
    expect(text).not.toContain(storeDir)
    expect(loadCassette(cassette).run.id).toBe(source.id)
  })

  it('the exported test passes when Vitest runs it, alone with --exported', async () => {
    const r = await runFixture(project, ['run', '--exported'], { bin: 'crashlab' })
    expect(r.code, r.output).toBe(0)
    expect(r.output).toContain('crashlab.test.ts')
    expect(r.output).not.toContain('order.spec.ts')
    expect(r.output).toMatch(/Tests\s+1 passed \(1\)/)
    // The replay never reached the provider: it was closed over by the recording only.
    expect(provider.requests).toHaveLength(2)
  })

  it('carries the crashlab-exported tag: vitest --tags-filter runs it alone too', async () => {
    expect(readFileSync(testFile, 'utf8')).toContain("{ tags: ['crashlab-exported'] }")
    const r = await runFixture(project, ['run', '--tags-filter=crashlab-exported'])
    expect(r.code, r.output).toBe(0)
    expect(r.output).toMatch(/Tests\s+1 passed/)
    expect(r.output).not.toMatch(/order\.spec\.ts.*✓/)
  })

  it('fails when its cassette is tampered with: a tool call the model never made diverges', async () => {
    const original = readFileSync(cassette, 'utf8')
    try {
      const doc = JSON.parse(original)
      const message = doc.run.steps[0].response.wire.body.choices[0].message
      message.tool_calls[0].function.arguments = '{"order_id":"A18"}'
      writeFileSync(cassette, JSON.stringify(doc, null, 2))
      const r = await runFixture(project, ['run', '--exported'], { bin: 'crashlab' })
      expect(r.code).toBe(1)
      expect(r.output).toMatch(/diverged at step 1/)
      expect(r.output).toContain('A18')
    } finally {
      writeFileSync(cassette, original)
    }
  })

  it('fails when a stored check result is tampered with', async () => {
    const original = readFileSync(cassette, 'utf8')
    try {
      const doc = JSON.parse(original)
      doc.run.checks[0].passed = false
      writeFileSync(cassette, JSON.stringify(doc, null, 2))
      const r = await runFixture(project, ['run', '--exported'], { bin: 'crashlab' })
      expect(r.code).toBe(1)
      expect(r.output).toContain('saysShipped')
      expect(r.output).toMatch(/Tests\s+1 failed \(1\)/)
    } finally {
      writeFileSync(cassette, original)
    }
  })
})

describe('exportTest', () => {
  it('writes store and home paths as <store> and ~ in what the test asserts, and a relative module', () => {
    const out = mkdtempSync(join(tmpdir(), 'crashlab-export-unit-'))
    try {
      const run = createRun({
        name: 'Refund Bot!',
        entryPoint: { kind: 'module', module: join(out, 'src', 'agent.ts'), export: 'run' },
      })
      run.status = 'error'
      run.endedAt = run.startedAt
      run.error = { name: 'Error', message: `cannot read /home/ada/.config/x and ${out}/store/runs/a.json` }
      run.checks = [{ name: 'noCrash', passed: false, message: `crashed in /home/ada/app` }]
      const { testPath, cassettePath } = exportTest(run, {
        dir: join(out, 'exported'),
        storeDir: join(out, 'store'),
        home: '/home/ada',
        root: out,
      })
      expect(testPath).toBe(join(out, 'exported', `refund-bot-${run.id.toLowerCase()}.crashlab.test.ts`))
      const written = loadCassette(cassettePath).run
      expect(written.error?.message).toBe('cannot read ~/.config/x and <store>/runs/a.json')
      expect(written.checks[0]?.message).toBe('crashed in ~/app')
      expect(written.entryPoint).toEqual({ kind: 'module', module: './src/agent.ts', export: 'run' })
      const text = readFileSync(testPath, 'utf8')
      expect(text).toContain('"message": "crashed in ~/app"')
      expect(text).toContain("expect(run.status).toBe('ok')")
      expect(text).not.toContain('/home/ada')
      expect(readdirSync(join(out, 'exported', '__cassettes__'))).toHaveLength(1)
    } finally {
      rmSync(out, { recursive: true, force: true })
    }
  })
})

describe('exportTest and URLs that contain the home path', () => {
  it('leaves `//root:` in a connection string alone, so the redactor still finds its password', () => {
    const out = mkdtempSync(join(tmpdir(), 'crashlab-export-dsn-'))
    // Built at run time: no whole credential literal in the repository.
    const password = ['Zq8', 'vR2', 'mK7', 'pL4'].join('')
    try {
      const run = createRun({ name: 'dsn' })
      run.status = 'error'
      run.endedAt = run.startedAt
      run.error = {
        name: 'Error',
        message: `connect mysql://root:${password}@10.0.0.5:3306/shop failed in /root/app`,
      }
      const { testPath, cassettePath } = exportTest(run, {
        dir: join(out, 'exported'),
        home: '/root',
        root: out,
        entry: './agent.ts#run',
      })
      const written = loadCassette(cassettePath).run
      expect(written.error?.message).toBe(
        'connect mysql://root:[REDACTED:url-password]@10.0.0.5:3306/shop failed in ~/app',
      )
      for (const file of [testPath, cassettePath]) expect(readFileSync(file, 'utf8')).not.toContain(password)
    } finally {
      rmSync(out, { recursive: true, force: true })
    }
  })
})

describe('crashlab vitest --exported', () => {
  it('turns the switch into a file filter, before any --', () => {
    expect(exportedFilter(['run', '--exported'])).toEqual(['run', '.crashlab.test.'])
    expect(exportedFilter(['--exported', 'run', '--', '--exported'])).toEqual([
      'run',
      '.crashlab.test.',
      '--',
      '--exported',
    ])
    expect(exportedFilter(['run'])).toEqual(['run'])
  })
})
