import { join } from 'node:path'
import { expect, it } from 'vitest'
import { runFixture } from './projects/run-fixture.ts'

// examples/refund-bot is its own Vitest project with the crashlab plugin: under CI it replays the
// committed cassettes (nothing is written, so it runs in place).
it('the refund-bot example replays its committed cassettes offline', { timeout: 60_000 }, async () => {
  const run = await runFixture(join(import.meta.dirname, '..', 'examples', 'refund-bot'), ['run'], {
    ci: true,
  })
  if (run.code !== 0) throw new Error(run.output)
  expect(run.output).toMatch(/Tests\s+5 passed/)
  expect(run.output).toContain('cassettes: 0 recorded · 2 replayed (mode replay)')
  expect(run.log).toEqual([{ requests: 0, refunds: 0 }])
})
