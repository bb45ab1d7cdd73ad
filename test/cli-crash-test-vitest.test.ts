import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CrashMatrix } from '../src/crash/crash-matrix.ts'
import { installInterceptor, type Run, record } from '../src/index.ts'
import { type ScriptedProvider, startScriptedProvider } from '../src/testing/index.ts'
import { runBin } from './helpers/built-bin.ts'
import { refundOrder } from './projects/crash-cli/agent.ts'
import { refundModel } from './projects/fork/model.ts'
import { copyProject, removeProject } from './projects/run-fixture.ts'

// `crashlab crash-test <run> --vitest`: each cell of the crash test is its own Vitest task of the
// project, the matrix drawn by crashlab's reporter from the tasks' meta; two shards with blob reports,
// merged, give the matrix of one run. The run is test/cli-crash-test.test.ts's: the refund bot of
// test/projects/crash-cli recorded against the scripted provider with a module entry point. Its steps:
// 0 llm, 1 tool get_order, 2 llm, 3 tool issue_refund, 4 llm.
const ENTRY = { kind: 'module', module: './agent.ts', export: 'refundOrder' } as const
const FAULTS = 'rate_limit,tool_html_error,tool_throw'

let provider: ScriptedProvider
let project: string
let storeDir: string
let parent: Run

const crashlab = (args: string[]) =>
  runBin(project, { CRASHLAB_DIR: storeDir }, ['crash-test', parent.id, ...args])

/** What the two ways of running a crash test must agree on: each cell's place, fault, outcome and why. */
const comparable = (cells: CrashMatrix['cells']) =>
  cells.map(({ step, fault, outcome, detail }) => ({ step, fault, outcome, detail }))

beforeAll(async () => {
  provider = await startScriptedProvider({ policy: refundModel })
  project = copyProject('crash-cli')
  storeDir = mkdtempSync(join(tmpdir(), 'crashlab-crash-vitest-'))
  const interceptor = installInterceptor({ hosts: [provider.url] })
  try {
    const { run, error } = await record('refund-bot', refundOrder, {
      input: { question: 'My order A17 arrived broken, refund it.', baseURL: `${provider.url}/v1` },
      config: join(project, 'crashlab.config.ts'),
      store: storeDir,
      entryPoint: ENTRY,
    })
    if (error) throw error
    parent = run
  } finally {
    await interceptor.close()
  }
}, 60_000)
afterAll(async () => {
  await provider.close()
  removeProject(project)
  rmSync(storeDir, { recursive: true, force: true })
})

// Whole Vitest runs, one after the other, on machines that may be loaded: the timeouts are a safety
// net, not a speed goal.
describe('crashlab crash-test --vitest', { timeout: 180_000 }, () => {
  let inProcess: CrashMatrix

  it('--json: the cells of the in-process crash test, each a Vitest task, offline', async () => {
    const direct = await crashlab(['--faults', FAULTS, '--json'])
    expect(direct.code).toBe(1)
    inProcess = JSON.parse(direct.stdout) as CrashMatrix
    const before = provider.requests.length
    const r = await crashlab(['--faults', FAULTS, '--vitest', '--slots', '3', '--json'])
    // Nothing reached the provider: every variant was a replay.
    expect(provider.requests.length).toBe(before)
    expect(r.code, r.stderr).toBe(1)
    const matrix = JSON.parse(r.stdout) as CrashMatrix
    expect(matrix.runId).toBe(parent.id)
    expect(comparable(matrix.cells)).toEqual(comparable(inProcess.cells))
    // 3 model calls × 1 model fault, 2 tool calls × 2 tool faults; one failed (the HTML page read as an order).
    expect(matrix.cells).toHaveLength(3 + 2 * 2)
    expect(matrix.cells.filter((c) => c.outcome === 'failed').map((c) => [c.step, c.fault.kind])).toEqual([
      [1, 'tool_html_error'],
    ])
    // Vitest's output, on stderr: one test per cell over three files, the failed cell's test failed,
    // and the reporter's matrix.
    expect(r.stderr).toMatch(/Test Files\s+1 failed \| 2 passed \(3\)/)
    expect(r.stderr).toMatch(/Tests\s+1 failed \| 6 passed \(7\)/)
    expect(r.stderr).toContain('step 1 (tool) × ')
    expect(r.stderr).toContain(`crash test of run ${parent.id} (refund-bot)`)
    expect(r.stderr).toContain('step 1 get_order')
    // Each variant is stored, linked to the run.
    const variants = matrix.cells.map((c) => c.runId)
    expect(new Set(variants).size).toBe(matrix.cells.length)
    const ls = await runBin(project, { CRASHLAB_DIR: storeDir }, ['ls', '--tag', 'crash-test', '--json'])
    const stored = (JSON.parse(ls.stdout) as Array<{ id: string }>).map((s) => s.id)
    for (const id of variants) expect(stored).toContain(id)
  })

  it('the same matrix on a second run, printed by the reporter', async () => {
    const r = await crashlab(['--faults', FAULTS, '--vitest', '--slots', '2'])
    expect(r.code).toBe(1)
    expect(r.stdout).toContain(`crash test of run ${parent.id} (refund-bot)`)
    expect(r.stdout).toContain('429 (retry-after 0s)')
    expect(r.stdout).toMatch(/✗ failed step 1 get_order × .*get_order returned no total/)
    const again = await crashlab(['--faults', FAULTS, '--vitest', '--json'])
    expect(comparable((JSON.parse(again.stdout) as CrashMatrix).cells)).toEqual(comparable(inProcess.cells))
  })

  it('two shards with blob reports, merged, give the matrix of one run; each shard alone says how to merge', async () => {
    const reports = mkdtempSync(join(tmpdir(), 'crashlab-crash-blobs-'))
    try {
      const before = provider.requests.length
      const counts: number[] = []
      for (const shard of ['1/2', '2/2']) {
        const r = await crashlab([
          '--faults',
          FAULTS,
          '--vitest',
          '--slots',
          '4',
          '--shard',
          shard,
          '--reporter',
          'blob',
          '--output-file',
          join(reports, `blob-${shard.replace('/', '-')}.json`),
        ])
        const line = new RegExp(
          `shard ${shard}: (\\d+) cells \\(\\d+ survived, \\d+ failed, \\d+ diverged\\); merge the shards' reports for the matrix: ` +
            `crashlab crash-test ${parent.id} --merge-reports <dir>`,
        ).exec(r.stdout)
        expect(line, r.stdout + r.stderr).not.toBeNull()
        counts.push(Number(line?.[1]))
        expect(r.stdout).not.toContain('crash test of run')
      }
      expect(counts.reduce((a, b) => a + b)).toBe(inProcess.cells.length)
      expect(provider.requests.length).toBe(before)
      expect(readdirSync(reports).sort()).toEqual(['blob-1-2.json', 'blob-2-2.json'])
      const merged = await crashlab(['--merge-reports', reports, '--json'])
      expect(merged.code).toBe(1)
      const matrix = JSON.parse(merged.stdout) as CrashMatrix
      expect(comparable(matrix.cells)).toEqual(comparable(inProcess.cells))
    } finally {
      rmSync(reports, { recursive: true, force: true })
    }
  })

  it('bad input: --shard without --vitest, and a --shard that is not i/n, are usage errors', async () => {
    const alone = await crashlab(['--faults', FAULTS, '--shard', '1/2'])
    expect(alone.code).toBe(1)
    expect(alone.stderr).toContain('--shard goes with --vitest')
    const bad = await crashlab(['--faults', FAULTS, '--vitest', '--shard', 'half'])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('--shard takes i/n')
  })
})
