import { afterAll, expect, test } from 'vitest'
import { live } from '../../../plugin/index.ts'

// FIXTURE_REMOTE_URL: a server of the parent test that counts the connections it accepts.
const REMOTE = process.env.FIXTURE_REMOTE_URL ?? 'http://127.0.0.2:9'

const settle = (path: string) =>
  fetch(`${REMOTE}${path}`).then(
    (r) => `status ${r.status}`,
    () => 'failed',
  )

// A module-level client's call (a warm-up, a health check): made outside any test's Session.
const atLoad = await settle('/module-level')

afterAll(async () => {
  // A trace exporter's flush at the end of the file: outside any Session too.
  console.log(`after-all: ${await settle('/after-all')}`)
})

test('the module-level request got an answer only outside replay mode', () => {
  console.log(`module-level: ${atLoad}`)
  expect(atLoad).toMatch(/status 200|failed/)
})

test('a live test keeps its network in every mode', live(), async () => {
  expect(await settle('/live')).toBe('status 200')
})
