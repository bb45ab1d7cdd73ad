import { afterAll, beforeAll, expect, it } from 'vitest'
import { type CountingServer, startCountingServer } from '../src/interceptor/internal/counting-server.ts'
import { REMOTE_ADDRESSES_ENV } from '../src/interceptor/internal/loopback.ts'
import { copyProject, removeProject, runFixture } from './projects/run-fixture.ts'

// test/projects/offline under CI=true (replay mode): requests made outside any test's Session (at module
// load, in afterAll) to a "remote" server are refused with a warning naming the URL and `allowHosts`; a
// live() test keeps its network. Counted at the socket by a server on 127.0.0.2, which the child treats
// as remote (CRASHLAB_REMOTE_ADDRESSES); the run without CI is the control: every request arrives.
let remote: CountingServer
let dir: string
beforeAll(async () => {
  remote = await startCountingServer('127.0.0.2')
  dir = copyProject('offline')
})
afterAll(async () => {
  await remote.close()
  removeProject(dir)
})

const env = () => ({ FIXTURE_REMOTE_URL: remote.url, [REMOTE_ADDRESSES_ENV]: '127.0.0.2' })

it('under CI=true, Session-less requests are refused with a warning; a live test keeps its network', {
  timeout: 60_000,
}, async () => {
  const replayed = await runFixture(dir, ['run'], { ci: true, env: env() })
  if (replayed.code !== 0) throw new Error(replayed.output)
  expect(remote.paths()).toEqual(['/live'])
  expect(remote.connections()).toBe(1)
  expect(replayed.output).toContain('module-level: failed')
  expect(replayed.output).toContain('after-all: failed')
  for (const path of ['/module-level', '/after-all']) {
    const warning = replayed.output.split('\n').find((l) => l.includes(`${remote.url}${path}`))
    expect(warning).toContain('allowHosts')
  }

  // Control: not in replay mode, the same requests reach the server.
  const local = await runFixture(dir, ['run'], { env: env() })
  if (local.code !== 0) throw new Error(local.output)
  expect(remote.paths().slice(1).sort()).toEqual(['/after-all', '/live', '/module-level'])
  expect(local.output).toContain('module-level: status 200')
})

it('allowHosts in the plugin lets a replay reach a named host', { timeout: 60_000 }, async () => {
  const before = remote.connections()
  const allowed = await runFixture(dir, ['run'], {
    ci: true,
    env: { ...env(), FIXTURE_ALLOW_HOSTS: `127.0.0.2:${remote.port}` },
  })
  if (allowed.code !== 0) throw new Error(allowed.output)
  expect(allowed.output).toContain('module-level: status 200')
  expect(remote.connections()).toBe(before + 3)
})
