import { afterAll, expect, it } from 'vitest'
import { cassettesOf, copyProject, removeProject, runFixture } from './projects/run-fixture.ts'

// test/projects/intercepted: a plain OpenAI client (no wrap), seen by the MSW interceptor the plugin's
// setup file starts.
const copies: string[] = []
afterAll(() => {
  for (const dir of copies) removeProject(dir)
})

it('records and replays an unwrapped client through the interceptor, offline in CI', {
  timeout: 60_000,
}, async () => {
  const dir = copyProject('intercepted')
  copies.push(dir)
  const recorded = await runFixture(dir, ['run'])
  if (recorded.code !== 0) throw new Error(recorded.output)
  expect(recorded.output).toContain('cassettes: 2 recorded · 0 replayed (mode missing)')
  expect(cassettesOf(dir, 'intercepted.spec.ts')).toEqual([
    'a plain test that calls the model itself.cassette.json',
    'refund through the interceptor.cassette.json',
  ])
  expect(recorded.log).toEqual([{ requests: 4, refunds: 1 }])

  const replayed = await runFixture(dir, ['run'], { ci: true })
  if (replayed.code !== 0) throw new Error(replayed.output)
  expect(replayed.output).toContain('cassettes: 0 recorded · 2 replayed (mode replay)')
  expect(replayed.log).toEqual([{ requests: 0, refunds: 0 }])
})
