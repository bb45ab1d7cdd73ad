import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CrashMatrix } from '../src/crash/crash-matrix.ts'
import { installInterceptor, type Run, record } from '../src/index.ts'
import { openStore } from '../src/store/index.ts'
import { type ScriptedProvider, startScriptedProvider } from '../src/testing/index.ts'
import { BUILT_BIN } from './helpers/built-bin.ts'
import { refundOrder } from './projects/crash-cli/agent.ts'
import { refundModel } from './projects/fork/model.ts'
import { copyProject, removeProject } from './projects/run-fixture.ts'

// `crashlab crash-test`: a run of the refund bot in test/projects/crash-cli (OpenAI SDK with its
// retries, a pure `get_order` whose total the code reads, a side-effect `issue_refund`), recorded against
// the scripted provider with a module entry point, is replayed once per fault at each step it fits.
// Its steps: 0 llm, 1 tool get_order, 2 llm, 3 tool issue_refund, 4 llm.
const ENTRY = { kind: 'module', module: './agent.ts', export: 'refundOrder' } as const
const FAULTS = 'rate_limit,timeout,gateway_html:502,tool_html_error,tool_throw'

let provider: ScriptedProvider
let project: string
let storeDir: string
let parent: Run

function crashlab(args: string[]) {
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1', CRASHLAB_DIR: storeDir }
  delete env.CRASHLAB_CONFIG
  for (const key of Object.keys(env)) if (key.startsWith('VITEST')) delete env[key]
  const r = spawnSync(process.execPath, [BUILT_BIN, ...args], { cwd: project, encoding: 'utf8', env })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

beforeAll(async () => {
  provider = await startScriptedProvider({ policy: refundModel })
  project = copyProject('crash-cli')
  storeDir = mkdtempSync(join(tmpdir(), 'crashlab-crash-store-'))
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
})
afterAll(async () => {
  await provider.close()
  removeProject(project)
  rmSync(storeDir, { recursive: true, force: true })
})

describe('crashlab crash-test', () => {
  it('the recorded run looks the order up, refunds it and reports', () => {
    expect(parent.steps.map((s) => (s.type === 'tool' ? s.name : s.type))).toEqual([
      'llm',
      'get_order',
      'llm',
      'issue_refund',
      'llm',
    ])
  })

  it('--json: each fault at each step it fits, judged; offline; every variant stored and linked', async () => {
    const before = provider.requests.length
    const r = crashlab(['crash-test', parent.id, '--faults', FAULTS, '--json'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(1)
    const matrix = JSON.parse(r.stdout) as CrashMatrix
    expect(provider.requests.length).toBe(before)
    // Nothing left; what a diverged variant asked for was refused, once per diverged cell.
    expect(matrix.network.requests).toEqual([])
    expect(matrix.network.connections).toEqual([])
    expect(matrix.network.refused).toHaveLength(matrix.cells.filter((c) => c.outcome === 'diverged').length)
    const outcome = (step: number, kind: string) =>
      matrix.cells.find((c) => c.step === step && c.fault.kind === kind)?.outcome
    // The SDK retries a 429, a timeout and a 502 page: the retry is served from the recording.
    for (const step of [0, 2, 4])
      for (const kind of ['rate_limit', 'timeout', 'gateway_html'])
        expect(outcome(step, kind)).toBe('survived')
    // The code reads the total from get_order's result: a page of HTML crashes it.
    expect(outcome(1, 'tool_html_error')).toBe('failed')
    expect(matrix.cells.find((c) => c.step === 1 && c.fault.kind === 'tool_html_error')?.detail).toContain(
      'get_order returned no total',
    )
    // A tool error goes back to the model: the next request is one the recording does not hold.
    expect(outcome(1, 'tool_throw')).toBe('diverged')
    expect(matrix.cells.find((c) => c.step === 1 && c.fault.kind === 'tool_throw')?.detail).toMatch(
      /^asked at step 2 for openai-chat chat.completions call the recording does not hold: /,
    )
    expect(matrix.cells).toHaveLength(3 * 3 + 2 * 2)

    const store = await openStore({ dir: storeDir, config: false })
    try {
      const variant = store.load(matrix.cells[0]?.runId as string)
      expect(variant.links.crashOf).toEqual({ run: parent.id, step: 0, fault: { kind: 'rate_limit' } })
      expect(store.list({ tag: 'crash-test', limit: 100 }).length).toBeGreaterThanOrEqual(matrix.cells.length)
    } finally {
      store.close()
    }
  }, 60_000)

  it('the same cells on a second run; the text matrix names the steps and the faults', () => {
    const first = JSON.parse(
      crashlab(['crash-test', parent.id, '--faults', FAULTS, '--json']).stdout,
    ) as CrashMatrix
    const r = crashlab(['crash-test', parent.id, '--faults', FAULTS, '--steps', '0,1'])
    const again = JSON.parse(
      crashlab(['crash-test', parent.id, '--faults', FAULTS, '--json']).stdout,
    ) as CrashMatrix
    const cells = (m: CrashMatrix) => m.cells.map(({ step, fault, outcome }) => [step, fault.kind, outcome])
    expect(cells(again)).toEqual(cells(first))
    expect(r.code).toBe(1)
    // A row per fault, a column per step: a model fault has no cell at the tool step, and back.
    expect(r.stdout).toContain('steps: 0 llm · 1 get_order\n')
    expect(r.stdout).toMatch(/\n429 \(retry-after 0s\) +✓ {2}·\n/)
    expect(r.stdout).toMatch(/\ntool HTML error +· {2}✗\n/)
    expect(r.stdout).toMatch(/✗ failed step 1 get_order × .*get_order returned no total/)
    expect(r.stdout).toContain('network: nothing sent')
  }, 60_000)

  it("the run's HTML report draws its crash tests as a grid coloured by outcome, from the stored variants", () => {
    const json = crashlab([
      'crash-test',
      parent.id,
      '--faults',
      'rate_limit,tool_html_error,tool_throw',
      '--json',
    ])
    const matrix = JSON.parse(json.stdout) as CrashMatrix
    const out = join(storeDir, 'report.html')
    const r = crashlab(['report', parent.id, '--html', out])
    expect(r.code).toBe(0)
    const html = readFileSync(out, 'utf8')
    expect(html).toContain('<section id="crash-tests">')
    expect(html).toContain('href="#crash-tests"')
    // One coloured cell per cell of the newest crash test of each fault at each step.
    const cells = [...html.matchAll(/<td class="crash-cell" data-outcome="(\w+)"/g)].map((m) => m[1])
    expect(cells.filter((o) => o === 'failed').length).toBe(
      matrix.cells.filter((c) => c.outcome === 'failed').length,
    )
    expect(cells.filter((o) => o === 'diverged').length).toBe(
      matrix.cells.filter((c) => c.outcome === 'diverged').length,
    )
    expect(cells.filter((o) => o === 'survived').length).toBeGreaterThanOrEqual(3)
    expect(html).toContain('get_order returned no total')
  }, 60_000)

  it('bad input: an unknown fault kind and a step out of range are usage errors that name them', () => {
    const kind = crashlab(['crash-test', parent.id, '--faults', 'rate_limt'])
    expect(kind.code).toBe(1)
    expect(kind.stderr).toContain('rate_limt')
    expect(kind.stderr).toContain('E_FAULT_INVALID')
    const step = crashlab(['crash-test', parent.id, '--steps', '9'])
    expect(step.code).toBe(1)
    expect(step.stderr).toContain('0 to 4')
    expect(step.stderr).toContain('E_CLI_USAGE')
  })
})
