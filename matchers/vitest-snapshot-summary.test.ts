import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'

/**
 * toMatchAgentCase under a real Vitest run: the update policy comes from Vitest itself (local, CI=true,
 * -u) and the baseline shows up in Vitest's snapshot summary. A small project in a temp folder imports
 * the matchers by absolute path and is run by this repository's Vitest on this Node.
 */

const root = resolve(import.meta.dirname, '..')
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs')
let dir: string

function run(args: string[], env: Record<string, string | undefined>) {
  const { CI: _ci, UPDATE_SNAPSHOT: _update, ...rest } = process.env
  const r = spawnSync(process.execPath, [vitest, 'run', '--root', dir, ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...rest, NO_COLOR: '1', FORCE_COLOR: '0', ...env },
  })
  return { code: r.status, out: `${r.stdout}\n${r.stderr}` }
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'crashlab-matchers-project-'))
  writeFileSync(join(dir, 'vitest.config.mjs'), 'export default { test: { include: ["*.spec.ts"] } }\n')
  writeFileSync(
    join(dir, 'refund.spec.ts'),
    [
      "import { expect, test } from 'vitest'",
      `import ${JSON.stringify(join(root, 'matchers', 'index.ts'))}`,
      `import { refundRun } from ${JSON.stringify(join(root, 'matchers', 'internal', 'test-runs.ts'))}`,
      "test('refund > happy path', () => {",
      '  expect(refundRun({ amount: Number(process.env.AMOUNT ?? 49) })).toMatchAgentCase()',
      '})',
      '',
    ].join('\n'),
  )
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

// One test, because each step needs the files the previous one left.
describe('toMatchAgentCase in a real Vitest run', () => {
  test('CI refuses a missing baseline, a local run writes it, CI catches a change, -u accepts it', () => {
    const ci = run([], { CI: 'true' })
    expect(ci.code).toBe(1)
    expect(ci.out).toMatch(/No AgentCase baseline at .*refund › happy path\.agentcase.*not written on CI/)
    expect(existsSync(join(dir, '__cassettes__'))).toBe(false)

    // `--update new` is what a local run gets by default; explicit, so that the test also passes on CI.
    const local = run(['--update', 'new'], {})
    expect(local.out).toMatch(/Snapshots\s+1 written/)
    expect(local.code).toBe(0)
    expect(readdirSync(join(dir, '__cassettes__', 'refund.spec.ts'))).toEqual([
      'refund › happy path.agentcase',
    ])

    const changed = run([], { CI: 'true', AMOUNT: '490' })
    expect(changed.code).toBe(1)
    expect(changed.out).toMatch(/\$\.events\[\d+\]\.arguments\.amount: expected 49, got 490/)
    expect(changed.out).toMatch(/run `vitest -u` to accept it/)

    const updated = run(['-u'], { AMOUNT: '490' })
    expect(updated.out).toMatch(/Snapshots\s+1 updated/)
    expect(updated.code).toBe(0)
    expect(run([], { CI: 'true', AMOUNT: '490' }).code).toBe(0)
  }, 120_000)
})
