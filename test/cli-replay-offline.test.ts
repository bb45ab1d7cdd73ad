import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRun } from '../src/case/create-run.ts'
import { type CountingServer, startCountingServer } from '../src/interceptor/internal/counting-server.ts'
import { REMOTE_ADDRESSES_ENV } from '../src/interceptor/internal/loopback.ts'
import { openStore } from '../src/store/open-store.ts'
import { startScriptedProvider } from '../src/testing/start-scripted-provider.ts'
import type { ScriptedProvider } from '../src/testing/types.ts'
import { runBin } from './helpers/built-bin.ts'

// `crashlab replay` of a stored run that holds no model or http step (the model call escaped capture),
// through the built bin as a user runs it. Counted at the socket, in this process: the model (a
// scripted provider on loopback) counts requests, the "remote" server (127.0.0.2, treated as off the
// machine through CRASHLAB_REMOTE_ADDRESSES) counts connections.
const PROJECT = join(import.meta.dirname, 'projects', 'offline')

let model: ScriptedProvider
let remote: CountingServer
let storeDir: string
let id: string

beforeAll(async () => {
  model = await startScriptedProvider({ policy: () => ({ text: 'live answer' }) })
  remote = await startCountingServer('127.0.0.2')
  storeDir = mkdtempSync(join(tmpdir(), 'crashlab-replay-offline-'))
  const run = createRun({
    name: 'ask-and-report',
    input: { modelURL: `${model.url}/v1`, remoteURL: remote.url },
    entryPoint: { kind: 'module', module: './agent.ts', export: 'askAndReport' },
  })
  run.status = 'ok'
  run.endedAt = run.startedAt
  const store = await openStore({ dir: storeDir, config: false })
  try {
    id = store.save(run).id
  } finally {
    store.close()
  }
})

afterAll(async () => {
  await model.close()
  await remote.close()
  rmSync(storeDir, { recursive: true, force: true })
})

describe('crashlab replay of a run with no recorded call', () => {
  it('sends nothing, fails, and says what it refused instead of "nothing sent" by assumption', async () => {
    const r = await runBin(PROJECT, { CRASHLAB_DIR: storeDir, [REMOTE_ADDRESSES_ENV]: '127.0.0.2' }, [
      'replay',
      id,
    ])
    expect(model.requests).toHaveLength(0)
    expect(remote.connections()).toBe(0)
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('replay failed')
    expect(r.stderr).toMatch(/network: nothing sent; 2 refused/)
    expect(`${r.stdout}${r.stderr}`).not.toMatch(/\n\s+at /)
  })

  it('control: without the replay, the same agent reaches both servers (the counters see real traffic)', async () => {
    const { askAndReport } = (await import('./projects/offline/agent.ts')) as {
      askAndReport: (i: { modelURL: string; remoteURL: string }) => Promise<string[]>
    }
    const before = remote.connections()
    expect(await askAndReport({ modelURL: `${model.url}/v1`, remoteURL: remote.url })).toEqual([
      'live answer',
      'report 200',
    ])
    expect(model.requests).toHaveLength(1)
    expect(remote.connections()).toBe(before + 1)
  })
})
