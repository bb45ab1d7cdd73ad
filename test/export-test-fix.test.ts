import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadCassette, type Run } from '../src/index.ts'
import type { Patch } from '../src/patches/patch-schema.ts'
import { exportTest, verifiedFix } from '../src/rerun/export-test.ts'
import { openStore } from '../src/store/index.ts'
import { type ScriptedProvider, startScriptedProvider } from '../src/testing/index.ts'
import { verify } from '../src/verify/index.ts'
import { runBinSync } from './helpers/built-bin.ts'
import { copyProject, removeProject, runFixture } from './projects/run-fixture.ts'
import { RULE, supportModel } from './projects/verify/model.ts'
import { recordSupportRun } from './projects/verify/record-support.ts'

// `crashlab export-test <id> --fix`: a verified fix written out as a regression test, run by a real Vitest
// in a copy of test/projects/verify (a support bot whose scripted model names the order only when the
// system prompt carries RULE). One file, two tests: the failing run replayed and asserted failing, and
// the fix's passing patched fork replayed offline with the fix re-applied from the fork step.
const FIX: Patch = { kind: 'system_prompt', op: 'append', text: RULE }
const NO_HELP: Patch = { kind: 'system_prompt', op: 'append', text: 'Be brief.' }

// Exported tests import 'crashlab/vitest' as a user's project does: here, this repository's plugin.
const VITEST_CONFIG = `import { resolve } from 'node:path'
import { defineConfig } from 'vitest/config'
import { crashlab } from '../../../plugin/index.ts'

export default defineConfig({
  plugins: [crashlab({ hosts: ['127.0.0.1'] })],
  resolve: { alias: { 'crashlab/vitest': resolve(import.meta.dirname, '../../../plugin/index.ts') } },
  test: { include: ['**/*.crashlab.test.ts'], testTimeout: 30_000 },
})
`

let provider: ScriptedProvider
let project: string
let storeDir: string
let failing: Run
let firstVerdict: string

const env = () => ({ CRASHLAB_DIR: storeDir })

beforeAll(async () => {
  provider = await startScriptedProvider({ policy: supportModel(1) })
  project = copyProject('verify')
  writeFileSync(join(project, 'vitest.config.ts'), VITEST_CONFIG)
  storeDir = mkdtempSync(join(tmpdir(), 'crashlab-export-fix-'))
  failing = await recordSupportRun({ providerUrl: provider.url, project, storeDir })
  const store = await openStore({ dir: storeDir })
  try {
    const diagnosed = store.load(failing.id)
    store.save({
      ...diagnosed,
      fixes: [
        { id: 'fix-1', rank: 1, patch: NO_HELP, rationale: 'Brevity.', expectedEffect: 'A shorter answer.' },
        {
          id: 'fix-2',
          rank: 2,
          patch: FIX,
          rationale: 'Ask for the id.',
          expectedEffect: 'It names the order.',
        },
        { id: 'fix-3', rank: 3, patch: FIX, rationale: 'Never verified.', expectedEffect: 'Unknown.' },
      ],
    })
    // The forks go live from the final answer (step 2): the steps before it replay unpatched, the ones
    // from it patched.
    const common = { k: 5, atStep: 2, regress: 'none', baseUrl: provider.url, store, cwd: project } as const
    const first = await verify(store.load(failing.id), { ...common, fix: 'fix-1' })
    firstVerdict = first.verification.verdict
    expect(firstVerdict).not.toBe('VERIFIED')
    const second = await verify(store.load(failing.id), { ...common, fix: 'fix-2' })
    expect(second.verification.verdict).toBe('VERIFIED')
    failing = store.load(failing.id)
  } finally {
    store.close()
  }
})
afterAll(async () => {
  await provider.close()
  removeProject(project)
  rmSync(storeDir, { recursive: true, force: true })
})

// Each test below runs a whole Vitest project of its own: minutes on a loaded machine, not seconds.
describe('crashlab export-test --fix', { timeout: 120_000 }, () => {
  let testFile: string
  let fixCassette: string

  it('--fix auto picks the verified fix (fix-2, though fix-1 ranks higher) and writes one file with two tests', () => {
    const r = runBinSync(project, env(), 'export-test', failing.id, '--fix', 'auto', '-o', 'regressions')
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const base = `support-bot-${failing.id.toLowerCase()}`
    testFile = join(project, 'regressions', `${base}.crashlab.test.ts`)
    fixCassette = join(project, 'regressions', '__cassettes__', `${base}.fix-2.cassette.json`)
    expect(r.stdout).toContain(`of its verified fix fix-2`)
    expect(r.stdout).toContain(`regressions/__cassettes__/${base}.fix-2.cassette.json`)
    const { fix, verification } = verifiedFix(failing, 'auto')
    expect(fix.id).toBe('fix-2')
    expect(verification.atStep).toBe(2)
    const fork = loadCassette(fixCassette).run
    expect(fork.links).toMatchObject({ forkedFrom: failing.id, forkStep: 2, patch: FIX })
    expect(fork.outcome).toBe('pass')
    expect(r.stdout).toContain(`fork ${fork.id}, replayed with fix-2 from step 2`)
    const text = readFileSync(testFile, 'utf8')
    expect(text).toContain(`crashlab export-test ${failing.id} --fix fix-2`)
    expect(text).toContain("expect(run.outcome).toBe('fail')")
    expect(text).toContain("expect(run.outcome).toBe('pass')")
    expect(text).toContain(`'./__cassettes__/${base}.fix-2.cassette.json'`)
    expect(text).toContain('"kind": "system_prompt"')
    expect(text).toContain('atStep: 2,')
    expect(text.match(/\bit\(/g)).toHaveLength(2)
    expect(text).not.toContain(storeDir)
  })

  it('the exported file passes under Vitest: the failing run fails as it did, the patched fork passes, offline', async () => {
    const before = provider.requests.length
    const r = await runFixture(project, ['run', '--exported'], { bin: 'crashlab' })
    expect(r.code, r.output).toBe(0)
    expect(r.output).toMatch(/Tests\s+2 passed \(2\)/)
    expect(provider.requests).toHaveLength(before)
  })

  it('fails when the fix is not re-applied: the patched request diverges at the fork step', async () => {
    const original = readFileSync(testFile, 'utf8')
    try {
      writeFileSync(testFile, original.replace(/ {6}patch: \{[\s\S]*?\n {6}\},\n/, ''))
      expect(readFileSync(testFile, 'utf8')).not.toContain('patch:')
      // Without a patch, `atStep` alone changes nothing: the plain replay meets the unpatched request.
      writeFileSync(testFile, readFileSync(testFile, 'utf8').replace(/ {6}atStep: 2,\n/, ''))
      const r = await runFixture(project, ['run', '--exported'], { bin: 'crashlab' })
      expect(r.code).toBe(1)
      expect(r.output).toMatch(/diverged at step 2/)
      expect(r.output).toMatch(/Tests\s+1 failed \| 1 passed \(2\)/)
    } finally {
      writeFileSync(testFile, original)
    }
  })

  it('fails when the fix cassette is tampered with: an answer that does not name the order fails the oracle', async () => {
    const original = readFileSync(fixCassette, 'utf8')
    try {
      const doc = JSON.parse(original)
      const step = doc.run.steps[2]
      step.response.wire.body.choices[0].message.content = 'Your order has shipped.'
      writeFileSync(fixCassette, JSON.stringify(doc, null, 2))
      const r = await runFixture(project, ['run', '--exported'], { bin: 'crashlab' })
      expect(r.code).toBe(1)
      expect(r.output).toMatch(/Tests\s+1 failed \| 1 passed \(2\)/)
      expect(r.output).toContain('with fix-2 passes')
    } finally {
      writeFileSync(fixCassette, original)
    }
  })

  it('--fix with a fix that is not VERIFIED errors with the verdict it has', () => {
    const rejected = runBinSync(project, env(), 'export-test', failing.id, '--fix', 'fix-1', '-o', 'other')
    expect(rejected.code).toBe(1)
    expect(rejected.stderr).toContain('fix-1')
    expect(rejected.stderr).toContain(`is ${firstVerdict}, not VERIFIED`)
    const never = runBinSync(project, env(), 'export-test', failing.id, '--fix', 'fix-3', '-o', 'other')
    expect(never.code).toBe(1)
    expect(never.stderr).toContain(`fix-3 of run ${failing.id} has not been verified`)
    expect(never.stderr).toContain(`crashlab verify ${failing.id} --fix fix-3`)
    const unknown = runBinSync(project, env(), 'export-test', failing.id, '--fix', 'fix-9', '-o', 'other')
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('it has fix-1, fix-2, fix-3')
  })

  it('--fix auto with no verified fix names `crashlab verify`; a run of a test cannot carry its fix; nothing is written', () => {
    const out = mkdtempSync(join(tmpdir(), 'crashlab-export-fix-none-'))
    try {
      const unverified: Run = {
        ...failing,
        fixes: failing.fixes.map(({ verification: _v, ...fix }) => fix),
      }
      expect(() => exportTest(unverified, { dir: join(out, 'x'), fix: 'auto' })).toThrow(
        `has no VERIFIED fix (fix-1 not verified, fix-2 not verified, fix-3 not verified): verify one with \`crashlab verify ${failing.id} --fix fix-1\``,
      )
      expect(() => exportTest({ ...failing, fixes: [] }, { dir: join(out, 'x'), fix: 'auto' })).toThrow(
        `propose some with \`crashlab fix ${failing.id}\``,
      )
      const ofTest: Run = { ...failing, entryPoint: { kind: 'test', file: 'bot.test.ts', test: 'bot' } }
      expect(() => exportTest(ofTest, { dir: join(out, 'x'), fix: 'auto' })).toThrow(
        'only a run with a module entry point can be exported with its fix',
      )
      expect(() => readFileSync(join(out, 'x'))).toThrow()
    } finally {
      rmSync(out, { recursive: true, force: true })
    }
  })
})
