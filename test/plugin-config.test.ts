import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { copyProject, expectExit, readCassette, removeProject, runFixture } from './projects/run-fixture.ts'

// The config fixture project (test/projects/config): one crashlab.config.ts, honoured by the plugin and
// by a plain record() call in the same run, and a bad key that stops Vitest before any test.
const copies: string[] = []
afterAll(() => {
  for (const dir of copies) removeProject(dir)
})

function copy(): string {
  const dir = copyProject('config')
  copies.push(dir)
  return dir
}

describe.concurrent('the project config file', { timeout: 60_000 }, () => {
  it('is honoured alike by the plugin and by record(), and a test can override it', async () => {
    const dir = copy()
    const run = await runFixture(dir, ['run'])
    expectExit(run, 0)
    expect(run.output).toMatch(/Tests\s+3 passed/)
    const plugin = /FIXTURE plugin (cost=\S+ findings=\S*)/.exec(run.output)?.[1]
    const recorded = /FIXTURE record (cost=\S+ findings=\S*)/.exec(run.output)?.[1]
    expect(plugin).toMatch(/cost=0\.\d+ findings=.*budget/)
    expect(recorded).toBe(plugin)
    // The cassette the plugin wrote carries the priced steps and the findings, with where the price came from.
    const cassette = JSON.parse(
      readCassette(dir, 'config.spec.ts', 'the plugin honours crashlab.config.ts.cassette.json'),
    )
    expect(cassette.run.cost.usd).toBeGreaterThan(0)
    expect(cassette.run.cost.catalog).toContain('user')
    expect(cassette.run.findings.map((f: { kind: string }) => f.kind)).toContain('budget')
  })

  it('a bad key stops the run before any test, naming the key', async () => {
    const dir = copy()
    writeFileSync(join(dir, 'crashlab.config.ts'), "export default { checks: { maxToolCalls: 'two' } }\n")
    const run = await runFixture(dir, ['run'])
    expect(run.code).not.toBe(0)
    expect(run.output).toContain('is not a valid crashlab config')
    expect(run.output).toContain('$.checks.maxToolCalls')
    expect(run.output).not.toMatch(/Tests\s+\d+ passed/)
  })
})
