import { afterAll, beforeAll, expect, it } from 'vitest'
import { type CountingServer, startCountingServer } from '../src/interceptor/internal/counting-server.ts'
import { REMOTE_ADDRESSES_ENV } from '../src/interceptor/internal/loopback.ts'
import { cassettesOf, copyProject, readCassette, removeProject, runFixture } from './projects/run-fixture.ts'

// test/projects/agents-trace: the real OpenAI Agents SDK with tracing on, its trace exporter pointed at
// a server on 127.0.0.2 (remote to the child through CRASHLAB_REMOTE_ADDRESSES) that counts the
// connections it accepts. The batch is flushed in afterAll, outside any test's Session. Recorded live
// first (the upload arrives: the counter sees real traffic); replayed under CI=true, the test passes
// offline and the upload is refused with a warning naming the URL and `allowHosts`; with the trace host
// in `allowHosts`, the same replay's upload arrives.
let remote: CountingServer
let dir: string
beforeAll(async () => {
  remote = await startCountingServer('127.0.0.2')
  dir = copyProject('agents-trace')
})
afterAll(async () => {
  await remote.close()
  removeProject(dir)
})

const SPEC = 'agents-trace.spec.ts'
const INGEST = '/v1/traces/ingest'
const env = (extra: Record<string, string> = {}) => ({
  FIXTURE_TRACE_BASE: remote.url,
  [REMOTE_ADDRESSES_ENV]: '127.0.0.2',
  ...extra,
})
const warningsNaming = (output: string, url: string) =>
  output.split('\n').filter((l) => l.includes(url) && l.includes('allowHosts'))

it('records live: the trace upload of the Agents SDK reaches the counting server', {
  timeout: 60_000,
}, async () => {
  const recorded = await runFixture(dir, ['run'], { env: env() })
  if (recorded.code !== 0) throw new Error(recorded.output)
  const cassettes = cassettesOf(dir, SPEC)
  expect(cassettes).toHaveLength(1)
  // The upload left after the test, outside its Session: the cassette holds the model calls, not the trace.
  expect(readCassette(dir, SPEC, cassettes[0]!)).not.toContain(INGEST)
  expect(recorded.log).toEqual([{ requests: 2, refunds: 0 }])
  expect(remote.paths()).toContain(INGEST)
  expect(remote.connections()).toBeGreaterThanOrEqual(1)
})

it('replays under CI=true offline: the trace upload is refused with a warning naming it and allowHosts', {
  timeout: 60_000,
}, async () => {
  const before = remote.connections()
  const replayed = await runFixture(dir, ['run'], { ci: true, env: env() })
  if (replayed.code !== 0) throw new Error(replayed.output)
  expect(replayed.output).toContain('1 passed')
  expect(replayed.log).toEqual([{ requests: 0, refunds: 0 }])
  expect(remote.connections()).toBe(before)
  // The exporter tried twice (its maxRetries), both refused; crashlab warned once for the URL.
  expect(replayed.output).toContain('Tracing: failed to export traces after 2 attempts')
  expect(warningsNaming(replayed.output, `POST ${remote.url}${INGEST}`)).toHaveLength(1)
})

it('with the trace host in allowHosts, the same replay uploads the trace', { timeout: 60_000 }, async () => {
  const before = remote.connections()
  const allowed = await runFixture(dir, ['run'], {
    ci: true,
    env: env({ FIXTURE_ALLOW_HOSTS: `127.0.0.2:${remote.port}` }),
  })
  if (allowed.code !== 0) throw new Error(allowed.output)
  expect(allowed.log).toEqual([{ requests: 0, refunds: 0 }])
  expect(remote.connections()).toBeGreaterThan(before)
  expect(remote.paths().at(-1)).toBe(INGEST)
  expect(warningsNaming(allowed.output, `${remote.url}${INGEST}`)).toEqual([])
})
