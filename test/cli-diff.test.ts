import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Run } from '../src/case/schema/run.ts'
import { openStore } from '../src/store/index.ts'
import { BUILT_BIN } from './helpers/built-bin.ts'

// `crashlab diff` through the real bin, on a store of its own filled with the refund-bot's committed
// runs: the clean refund and the violation share the request at step 2 and the model answers it with
// 49 in one and 490 in the other. A replay and a fork of the clean run are saved with their links set,
// for the default-parent case (a real `crashlab replay` would record a whole run for it).
const root = resolve(import.meta.dirname, '..')
const DEMO = join(root, 'examples/refund-bot/demo/runs')
const CASSETTES = join(root, 'examples/refund-bot/__cassettes__')
const CLEAN_ID = '01M8KT641KV9P7GYP4TQ09Y4VQ'
const VIOLATION_ID = '01M8KT643TKE0YKKFY94CFE3AY'
const RETRY_ID = '01M8M292B2DTJDX7EMZ66GZAGW'
const REPLAY_ID = '01M8KT7000000000000000RPY1'
const FORK_ID = '01M8KT7000000000000000FRK1'
const ORPHAN_ID = '01M8KT7000000000000000RPH1'

let dir: string
let store: string

function crashlab(...args: string[]) {
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1', CRASHLAB_DIR: store }
  delete env.CRASHLAB_CONFIG
  const r = spawnSync(process.execPath, [BUILT_BIN, ...args], { cwd: dir, encoding: 'utf8', env })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'crashlab-cli-diff-'))
  store = join(dir, 'runs')
  const files = [
    ...readdirSync(DEMO).map((f) => join(DEMO, f)),
    join(CASSETTES, 'refund-a17.cassette.json'),
    join(CASSETTES, 'refund-a17-violation.cassette.json'),
  ].filter((f) => f.endsWith('.cassette.json'))
  const imported = crashlab('import', ...files)
  expect(imported.stderr).toBe('')
  expect(imported.code).toBe(0)
  const s = await openStore({ dir: store, config: false })
  try {
    const clean = s.load(CLEAN_ID)
    const violation = s.load(VIOLATION_ID)
    const copy = (run: Run, id: string, links: Run['links']): Run => ({ ...structuredClone(run), id, links })
    s.save(copy(clean, REPLAY_ID, { replayOf: CLEAN_ID }))
    s.save(copy(violation, FORK_ID, { forkedFrom: CLEAN_ID, forkStep: 2 }))
    s.save(copy(clean, ORPHAN_ID, { replayOf: '01M8KT7000000000000000GNE1' }))
  } finally {
    s.close()
  }
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('crashlab diff', () => {
  it('two runs: outcome and check changes, the alignment and the first divergence with its field', () => {
    const r = crashlab('diff', CLEAN_ID, VIOLATION_ID.slice(0, 12))
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(`A ${CLEAN_ID} (refund-bot)  vs  B ${VIOLATION_ID} (refund-bot)`)
    expect(r.stdout).toContain('unrelated runs')
    expect(r.stdout).toMatch(/^outcome\s+pass\s+fail\s+changed$/m)
    expect(r.stdout).toMatch(/^steps\s+5\s+5$/m)
    expect(r.stdout).toContain('≠ refundNeverExceedsTotal: pass → fail')
    expect(r.stdout).toMatch(/^\s+2\s+2\s+≠\s+different response\s+llm /m)
    expect(r.stdout).toMatch(/^\s+3\s+3\s+≠\s+different request\s+tool issue_refund$/m)
    expect(r.stdout).toContain('first divergence: A step 2, B step 2, different response')
    expect(r.stdout).toContain('$.toolCalls[0].args.amount: expected 49, got 490 (value_mismatch)')
  })

  it('--json: the RunDiff as data', () => {
    const r = crashlab('diff', CLEAN_ID, VIOLATION_ID, '--json')
    expect(r.code).toBe(0)
    const d = JSON.parse(r.stdout)
    expect(d.relation).toBe('unrelated')
    expect(d.outcome).toEqual({ a: 'pass', b: 'fail', changed: true })
    expect(d.checks).toEqual([{ name: 'refundNeverExceedsTotal', a: true, b: false, changed: true }])
    expect(d.alignment.map((x: { status: string }) => x.status)).toEqual([
      'same',
      'same',
      'different_response',
      'different_request',
      'different_request',
    ])
    expect(d.firstDivergence.differences[0]).toMatchObject({
      path: '$.toolCalls[0].args.amount',
      actual: 490,
    })
  })

  it('retried calls are only in B, beside the attempt that worked', () => {
    const r = crashlab('diff', CLEAN_ID, RETRY_ID)
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^steps\s+5\s+8\s+\+3$/m)
    expect(r.stdout).toContain('3 only in B')
    expect(r.stdout).toMatch(/^\s+0\s+3\s+=\s+same\s+llm /m)
    expect(r.stdout).toContain('first divergence: B step 0, only in B')
  })

  it('B defaults to A’s parent: a replay against the run it replays, a fork against its source', () => {
    const replay = crashlab('diff', REPLAY_ID)
    expect(replay.stderr).toBe('')
    expect(replay.code).toBe(0)
    expect(replay.stdout).toContain(`A ${CLEAN_ID} (refund-bot)  vs  B ${REPLAY_ID}`)
    expect(replay.stdout).toContain('B is a replay of A')
    expect(replay.stdout).toContain('no divergence')
    const fork = JSON.parse(crashlab('diff', FORK_ID, '--json').stdout)
    expect(fork).toMatchObject({
      relation: 'fork',
      parent: 'a',
      forkStep: 2,
      ids: { a: CLEAN_ID, b: FORK_ID },
    })
    expect(fork.firstDivergence).toMatchObject({ a: 2, b: 2, status: 'different_response' })
    expect(crashlab('diff', FORK_ID).stdout).toContain('B is a fork of A at step 2')
  })

  it('errors: no parent and no B, a parent not in the store, an unknown run', () => {
    const orphan = crashlab('diff', CLEAN_ID)
    expect(orphan.code).toBe(1)
    expect(orphan.stdout).toBe('')
    expect(orphan.stderr).toContain(`run ${CLEAN_ID} (refund-bot) is not a fork or a replay`)
    expect(orphan.stderr).toContain('crashlab diff 01M8KT641K <other run>')
    expect(orphan.stderr).toContain('(E_CLI_USAGE)')
    const missing = crashlab('diff', ORPHAN_ID)
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('01M8KT7000000000000000GNE1, which is not in')
    expect(missing.stderr).toContain('(E_RUN_NOT_FOUND)')
    const unknown = crashlab('diff', 'ZZZZZZ', CLEAN_ID)
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('ZZZZZZ')
    expect(unknown.stderr).toContain('(E_RUN_NOT_FOUND)')
  })
})
