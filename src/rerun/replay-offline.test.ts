import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createRun } from '../case/create-run.ts'
import { type CountingServer, startCountingServer } from '../interceptor/internal/counting-server.ts'
import { REMOTE_ADDRESSES_ENV } from '../interceptor/internal/loopback.ts'
import { startScriptedProvider } from '../testing/start-scripted-provider.ts'
import type { ScriptedProvider } from '../testing/types.ts'
import { replayRun } from './replay-run.ts'

// `crashlab replay` of a run whose recording has no model or http step (a model call that escaped
// capture): the replay must not go live. Counted at the socket: the model (a scripted provider on
// loopback) counts its requests, the "remote" server (127.0.0.2, listed in CRASHLAB_REMOTE_ADDRESSES)
// its connections; the live control shows both counters see real traffic.
const PROJECT = join(import.meta.dirname, '../../test/projects/offline')

let model: ScriptedProvider
let remote: CountingServer
beforeAll(async () => {
  process.env[REMOTE_ADDRESSES_ENV] = '127.0.0.2'
  model = await startScriptedProvider({ policy: () => ({ text: 'live answer' }) })
  remote = await startCountingServer('127.0.0.2')
})
afterAll(async () => {
  delete process.env[REMOTE_ADDRESSES_ENV]
  await model.close()
  await remote.close()
})

const input = () => ({ modelURL: `${model.url}/v1`, remoteURL: remote.url })

it('a replay of a run with no step sends nothing: the model call and the remote call are refused, and counted', async () => {
  const source = createRun({
    name: 'ask-and-report',
    input: input(),
    entryPoint: { kind: 'module', module: './agent.ts', export: 'askAndReport' },
  })
  const { run, error, network } = await replayRun(source, { cwd: PROJECT, config: false })
  expect(run.output === null || JSON.stringify(run.output)).not.toContain('live answer')
  expect(model.requests).toHaveLength(0)
  expect(remote.connections()).toBe(0)
  expect(error).toBeDefined()
  expect((error as Error).message).toMatch(/model call|no recorded call|diverge/i)
  expect(network?.requests).toEqual([])
  expect(network?.connections).toEqual([])
  expect(network?.refused).toHaveLength(2)

  // Control: the same agent, live, reaches both (the counters see real traffic).
  const { askAndReport } = (await import('../../test/projects/offline/agent.ts')) as {
    askAndReport: (i: ReturnType<typeof input>) => Promise<string[]>
  }
  expect(await askAndReport(input())).toEqual(['live answer', 'report 200'])
  expect(model.requests).toHaveLength(1)
  expect(remote.connections()).toBe(1)
})
