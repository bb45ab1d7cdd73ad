import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startScriptedProvider } from '../src/testing/index.ts'
import type { ScriptedProvider } from '../src/testing/types.ts'
import { runBin, runBinSync } from './helpers/built-bin.ts'

// `crashlab fix` through the built bin, on the refund bot's committed violation run (it refunded 490 on a
// 49 order A17), diagnosed by rules; the scripted provider plays the fixer, over loopback.
const VIOLATION = resolve(
  import.meta.dirname,
  '..',
  'examples/refund-bot/__cassettes__/refund-a17-violation.cassette.json',
)
const ID = '01M8KT643TKE0YKKFY94CFE3AY'
const GOOD = {
  kind: 'system_prompt',
  op: 'append',
  text: 'Before issue_refund, compare the amount with the total get_order returned; never exceed it.',
}
let dir: string
let provider: ScriptedProvider
let answer = ''

function crashlabSync(...args: string[]) {
  return runBinSync(dir, { CRASHLAB_DIR: join(dir, 'store') }, ...args)
}
/** Async, so that the scripted provider in this process can answer the child. */
function crashlab(args: string[], extra: Record<string, string> = {}) {
  return runBin(dir, { CRASHLAB_DIR: join(dir, 'store'), ...extra }, args)
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'crashlab-cli-fix-'))
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n')
  provider = await startScriptedProvider({ policy: () => ({ text: answer }) })
  expect(crashlabSync('import', VIOLATION).code).toBe(0)
})
afterAll(async () => {
  await provider.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('crashlab fix', () => {
  it('a run with no diagnosis: exit 1, saying to run crashlab diagnose first', async () => {
    const r = await crashlab(['fix', ID, '--model', 'm', '--base-url', `${provider.url}/v1`])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(`crashlab diagnose ${ID}`)
    expect(r.stderr).toContain('(E_FIX_NO_DIAGNOSIS)')
  })

  it('proposes, keeps the good fix, writes it as a patch file that fork --dry-run accepts', async () => {
    expect(crashlabSync('diagnose', ID, '--heuristic').code).toBe(0)
    answer = JSON.stringify({
      fixes: [
        {
          patch: GOOD,
          rationale: 'The prompt never says to compare.',
          expected_effect: 'Refunds at most the total.',
        },
        {
          patch: { kind: 'system_prompt', op: 'append', text: 'Refund A17 49.' },
          rationale: 'r',
          expected_effect: 'e',
        },
      ],
    })
    const before = provider.requests.length
    const r = await crashlab(['fix', ID, '--model', 'fixer-1', '--base-url', `${provider.url}/v1`])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(provider.requests.length - before).toBe(1)
    const file = join('store', 'fixes', ID, 'fix-1.yaml')
    expect(r.stdout).toContain('fix-1 (rank 1)')
    expect(r.stdout).toContain('why: The prompt never says to compare.')
    expect(r.stdout).toContain('expected: Refunds at most the total.')
    expect(r.stdout).toContain('+++ b/system')
    expect(r.stdout).toContain(`next: npx crashlab fork ${ID} --at 2 --patch ${file}`)
    expect(r.stdout).toMatch(/rejected system_prompt: hard-codes this run's data/)
    expect(existsSync(join(dir, 'store', 'fixes', ID, 'fix-2.yaml'))).toBe(false)
    expect(readFileSync(join(dir, file), 'utf8')).toContain('kind: system_prompt')

    const dry = crashlabSync('fork', ID, '--at', '2', '--patch', file, '--dry-run')
    expect(dry.stderr).toBe('')
    expect(dry.code).toBe(0)
    expect(dry.stdout).toContain('+Before issue_refund, compare the amount with the total')

    const stored = JSON.parse(crashlabSync('show', ID, '--json').stdout)
    expect(stored.fixes).toMatchObject([{ id: 'fix-1', rank: 1, patch: GOOD }])
  })

  it('--json, and --try on a run with no entry point: the fixes are written, then a clear error', async () => {
    answer = JSON.stringify({ fixes: [{ patch: GOOD, rationale: 'r', expected_effect: 'e' }] })
    const json = await crashlab([
      'fix',
      ID,
      '--model',
      'fixer-1',
      '--base-url',
      `${provider.url}/v1`,
      '--json',
    ])
    expect(json.code).toBe(0)
    expect(JSON.parse(json.stdout)).toMatchObject({
      fixes: [{ id: 'fix-1', patch: GOOD }],
      rejected: [],
      step: 2,
    })
    const r = await crashlab(['fix', ID, '--model', 'fixer-1', '--base-url', `${provider.url}/v1`, '--try'])
    expect(r.code).toBe(1)
    expect(r.stdout).toContain('trying fix-1')
    expect(r.stderr).toContain('has no entry point')
    expect(r.stderr).toContain('(E_REPLAY_NO_ENTRY)')
  })
})
