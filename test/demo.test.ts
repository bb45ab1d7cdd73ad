import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

// `npm run demo` end to end: five runs against the scripted provider into a store of its own, then the
// CLI over them; and the committed runs imported into an empty store with nothing running.
const root = resolve(import.meta.dirname, '..')
const RUNS = join(root, 'examples/refund-bot/demo/runs')
let dir: string
let demo: { code: number | null; out: string }

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'crashlab-demo-'))
  const r = spawnSync(process.execPath, [join(root, 'examples/refund-bot/demo/demo.ts')], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', DEMO_STORE: join(dir, 'store') },
    timeout: 120_000,
  })
  demo = { code: r.status, out: r.stdout + r.stderr }
}, 150_000)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('npm run demo', () => {
  it('records the five scenarios with what each shows', () => {
    if (demo.code !== 0) throw new Error(demo.out)
    expect(demo.out).toMatch(/1\. clean-refund {2}pass · ok · 5 steps/)
    expect(demo.out).toMatch(/2\. policy-violation {2}fail · ok · 5 steps .* failed: refundNeverExceedsTotal/)
    expect(demo.out).toMatch(
      /3\. html-502-retry-loop {2}pass · ok · \d+ steps[\s\S]*?findings: warn step_repetition/,
    )
    expect(demo.out).toMatch(
      /4\. circuit-breaker {2}\w+ · error · 5 steps[\s\S]*?stopped: \[crashlab\] circuit breaker/,
    )
    expect(demo.out).toMatch(/5\. bad-tool-argument .*\n\s+findings: error bad_tool_args \(step 2\)/)
  })

  it('then lists, shows, checks, replays and reports them through the CLI', () => {
    expect(demo.out).toMatch(/\$ npx crashlab ls[^\n]*\nid\s+name\s+status/)
    expect(demo.out).toContain(
      '✖ refundNeverExceedsTotal: refund for A17: expected 490 to be less than or equal to 49',
    )
    expect(demo.out).toContain('2 passed, 3 failed')
    expect(demo.out).toMatch(/replayed: 5 steps served from the recording, nothing sent/)
    expect(readFileSync(join(dir, 'store', 'report.html'), 'utf8')).toContain('refundNeverExceedsTotal')
  })

  it('PROVIDER=anthropic runs the same five scenarios on the Anthropic Messages API', () => {
    const r = spawnSync(process.execPath, [join(root, 'examples/refund-bot/demo/demo.ts')], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', PROVIDER: 'anthropic', DEMO_STORE: join(dir, 'anthropic') },
      timeout: 120_000,
    })
    if (r.status !== 0) throw new Error(r.stdout + r.stderr)
    expect(r.stdout).toContain('the refund bot on Anthropic')
    expect(r.stdout).toMatch(/2\. policy-violation {2}fail/)
    expect(r.stdout).toMatch(/findings: error bad_tool_args/)
    const show = /\$ npx crashlab show[\s\S]*?\$ npx crashlab check/.exec(r.stdout)?.[0] ?? ''
    expect(show).toContain('claude-haiku-4-5')
  }, 150_000)

  it('the committed runs import into an empty store and list with nothing running', () => {
    const files = readdirSync(RUNS).map((f) => join(RUNS, f))
    expect(files).toHaveLength(5)
    const env = { ...process.env, NO_COLOR: '1', CRASHLAB_DIR: join(dir, 'imported') }
    const bin = join(root, 'src/cli/bin.ts')
    const imported = spawnSync(process.execPath, [bin, 'import', ...files], {
      cwd: dir,
      encoding: 'utf8',
      env,
    })
    expect(imported.stderr).toBe('')
    expect(imported.status).toBe(0)
    const ls = spawnSync(process.execPath, [bin, 'ls', '--json'], { cwd: dir, encoding: 'utf8', env })
    const runs = JSON.parse(ls.stdout) as Array<{
      outcome: string
      status: string
      findings: Record<string, number>
    }>
    expect(runs).toHaveLength(5)
    expect(runs.filter((r) => r.outcome === 'fail')).toHaveLength(2)
    expect(runs.filter((r) => (r.findings.critical ?? 0) > 0)).toHaveLength(1)
  })
})
