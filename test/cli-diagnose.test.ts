import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startScriptedProvider } from '../src/testing/index.ts'
import type { ScriptedProvider } from '../src/testing/types.ts'
import { runBin, runBinSync } from './helpers/built-bin.ts'

// `crashlab diagnose` through the built bin, on the refund bot's committed violation run (it refunded 490
// on a 49 order): by rules, and by a model (the scripted provider playing the diagnoser, over loopback).
const VIOLATION = resolve(
  import.meta.dirname,
  '..',
  'examples/refund-bot/__cassettes__/refund-a17-violation.cassette.json',
)
const ID = '01M8KT643TKE0YKKFY94CFE3AY'
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
  dir = mkdtempSync(join(tmpdir(), 'crashlab-cli-diagnose-'))
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n')
  provider = await startScriptedProvider({ policy: () => ({ text: answer }) })
  expect(crashlabSync('import', VIOLATION).code).toBe(0)
})
afterAll(async () => {
  await provider.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('crashlab diagnose', () => {
  it('--heuristic: the label, the failing step, the evidence; stored and shown by show', () => {
    const r = crashlabSync('diagnose', ID, '--heuristic')
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    // Step 2, the model call that asked for the 490 refund (the decision), not step 3, the tool step
    // that ran it: the fork starts again from that decision.
    expect(r.stdout).toContain('TASK_SPEC_VIOLATION at step 2 (by heuristic)')
    expect(r.stdout).toContain('step 2: “call issue_refund {"amount":490,"order_id":"A17"}”')
    expect(r.stdout).toContain(`npx crashlab fork ${ID} --at 2 --dry-run`)
    expect(crashlabSync('show', ID).stdout).toMatch(/diagnosis\n\s+TASK_SPEC_VIOLATION at step 2/)
  })

  it('--show-prompt prints the compacted trace with the checks as hints, and calls nothing', () => {
    const before = provider.requests.length
    const r = crashlabSync('diagnose', ID, '--show-prompt')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('check refundNeverExceedsTotal: FAILED')
    expect(r.stdout).toContain('[step 3] tool issue_refund')
    expect(provider.requests.length).toBe(before)
  })

  it('--model on an OpenAI-compatible endpoint, the key from --api-key-env', async () => {
    answer = JSON.stringify({
      label: 'TASK_SPEC_VIOLATION',
      failing_step: 3,
      root_cause: 'The model asked for ten times the order total and the agent refunded it.',
      evidence: [{ step: 3, quote: '"amount":490' }],
    })
    const r = await crashlab(
      [
        'diagnose',
        ID,
        '--model',
        'diag-1',
        '--base-url',
        `${provider.url}/v1`,
        '--api-key-env',
        'MY_DIAG_KEY',
        '--json',
      ],
      { MY_DIAG_KEY: 'sk-diag-not-a-real-key-0123456789abcdef' },
    )
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({ label: 'TASK_SPEC_VIOLATION', failingStep: 3, by: 'diag-1' })
    expect((provider.requests.at(-1) as { headers?: Record<string, string> }).headers?.authorization).toBe(
      'Bearer sk-diag-not-a-real-key-0123456789abcdef',
    )
  })

  it('no model and no --heuristic: exit 1 saying how to give one', () => {
    const r = crashlabSync('diagnose', ID, '--force')
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('CRASHLAB_DIAGNOSER_MODEL')
    expect(r.stderr).toContain('(E_DIAGNOSE_CONFIG)')
  })
})
