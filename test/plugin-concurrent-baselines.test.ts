import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { copyProject, removeProject, runFixture } from './projects/run-fixture.ts'

// test/projects/concurrent-baselines: 24 `test.concurrent` agentCase tests, each calling toMatchAgentCase
// from its `assert(run, ctx)`, half through `ctx.expect` and half through the global `expect`.
const FILE = 'baselines.spec.ts'
const copies: string[] = []
afterAll(() => {
  for (const dir of copies) removeProject(dir)
})

function pathOf(dir: string, i: number): string {
  return join(dir, '__cassettes__', FILE, `24 baselines at once › ticket ${i}.agentcase`)
}

function read(dir: string, i: number): string {
  return readFileSync(pathOf(dir, i), 'utf8')
}

function baselinesOf(dir: string): string[] {
  return readdirSync(join(dir, '__cassettes__', FILE))
    .filter((f) => f.endsWith('.agentcase'))
    .sort()
}

it('gives each of 24 concurrent tests its own baseline, written once and matched on the next run', {
  timeout: 240_000,
}, async () => {
  const dir = copyProject('concurrent-baselines')
  copies.push(dir)
  const first = await runFixture(dir, ['run'])
  if (first.code !== 0) throw new Error(first.output)
  expect(first.output).toMatch(/Tests\s+24 passed/)
  expect(first.output).toMatch(/Snapshots\s+24 written/)
  expect(first.output).not.toContain('E_MATCHER_USAGE')

  const files = baselinesOf(dir)
  expect(files).toEqual(
    Array.from({ length: 24 }, (_, i) => `24 baselines at once › ticket ${i}.agentcase`).sort(),
  )
  const texts = new Map<number, string>()
  for (let i = 0; i < 24; i++) {
    const text = read(dir, i)
    texts.set(i, text)
    // Its own test's run, and no other's: every ticket the baseline mentions is its own.
    expect([...new Set(text.match(/ticket #\d+/g))], `baseline of ticket ${i}`).toEqual([`ticket #${i}`])
  }

  const second = await runFixture(dir, ['run'])
  if (second.code !== 0) throw new Error(second.output)
  expect(second.output).toMatch(/Tests\s+24 passed/)
  expect(second.output).not.toMatch(/Snapshots\s.*(written|updated)/)
  expect(second.output).not.toContain('E_MATCHER_USAGE')
  expect(baselinesOf(dir)).toEqual(files)
  for (const [i, text] of texts) expect(read(dir, i), `baseline of ticket ${i}`).toBe(text)

  // The second run compared: swap the baselines of a ctx.expect test (0) and a global-expect test (1),
  // and exactly those two fail, each naming its own baseline. CI=true so nothing is rewritten.
  writeFileSync(pathOf(dir, 0), texts.get(1) as string)
  writeFileSync(pathOf(dir, 1), texts.get(0) as string)
  const swapped = await runFixture(dir, ['run'], { ci: true })
  expect(swapped.code).toBe(1)
  expect(swapped.output).toMatch(/Tests\s+2 failed \| 22 passed/)
  for (const i of [0, 1])
    expect(swapped.output).toContain(
      `The run differs from its AgentCase baseline __cassettes__/${FILE}/24 baselines at once › ticket ${i}.agentcase`,
    )
})
