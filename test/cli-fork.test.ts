import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { diffRuns } from '../src/diff/run-diff.ts'
import { fork } from '../src/fork/index.ts'
import { installInterceptor, type Run, record } from '../src/index.ts'
import { openStore, type RunStore } from '../src/store/index.ts'
import { type ScriptedProvider, startScriptedProvider } from '../src/testing/index.ts'
import { BUILT_BIN } from './helpers/built-bin.ts'
import { refundOrder, refundRuns } from './projects/fork/agent.ts'
import { refundModel } from './projects/fork/model.ts'
import { copyProject, removeProject } from './projects/run-fixture.ts'

// `fork` and `crashlab fork`: a run recorded with record(..., { entryPoint }) in a copy of the fixture
// project test/projects/fork (a refund bot on the OpenAI SDK, with a pure `get_order` tool and a
// side-effect `issue_refund` tool, against the scripted provider) is forked at a step with a patch.
// Its steps: 0 llm, 1 tool get_order, 2 llm, 3 tool issue_refund, 4 llm.
const ENTRY = { kind: 'module', module: './agent.ts', export: 'refundOrder' } as const
const HALF = { kind: 'system_prompt', op: 'append', text: 'Refund half.' } as const
const POLITE = { kind: 'system_prompt', op: 'append', text: 'Be polite.' } as const

let provider: ScriptedProvider
let project: string
let storeDir: string
let parent: Run

function systemOf(body: unknown): string {
  const messages = (body as { messages: { role: string; content: string }[] }).messages
  return messages
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n')
}

function withStore<T>(fn: (store: RunStore) => T): Promise<T> {
  return openStore({ dir: storeDir, config: false }).then((store) => {
    try {
      return fn(store)
    } finally {
      store.close()
    }
  })
}

function env(): NodeJS.ProcessEnv {
  const vars: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1', CRASHLAB_DIR: storeDir }
  delete vars.CRASHLAB_CONFIG
  for (const key of Object.keys(vars)) if (key.startsWith('VITEST')) delete vars[key]
  return vars
}

function crashlab(args: string[]) {
  const r = spawnSync(process.execPath, [BUILT_BIN, ...args], { cwd: project, encoding: 'utf8', env: env() })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

/** For a fork that goes live: the scripted provider runs in this process, so the test must not block. */
function crashlabLive(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BUILT_BIN, ...args], { cwd: project, env: env() })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    child.on('error', fail)
    child.on('close', (code) => done({ code, stdout, stderr }))
  })
}

beforeAll(async () => {
  provider = await startScriptedProvider({ policy: refundModel })
  project = copyProject('fork')
  storeDir = mkdtempSync(join(tmpdir(), 'crashlab-fork-store-'))
  const interceptor = installInterceptor({ hosts: [provider.url] })
  try {
    const { run, error } = await record('refund-bot', refundOrder, {
      input: { question: 'My order A17 arrived broken, refund it.', baseURL: `${provider.url}/v1` },
      config: join(project, 'crashlab.config.ts'),
      store: storeDir,
      entryPoint: ENTRY,
    })
    if (error) throw error
    parent = run
  } finally {
    await interceptor.close()
  }
})
afterAll(async () => {
  await provider.close()
  removeProject(project)
  rmSync(storeDir, { recursive: true, force: true })
})

describe('fork: a module entry point against the scripted provider', () => {
  it('the parent refunded the order once', () => {
    expect(parent.steps.map((s) => (s.type === 'tool' ? s.name : s.type))).toEqual([
      'llm',
      'get_order',
      'llm',
      'issue_refund',
      'llm',
    ])
    expect(refundRuns()).toBe(1)
  })

  it('serves the steps before N from the cassette and patches every model request from N on', async () => {
    const before = provider.requests.length
    const store = await openStore({ dir: storeDir, config: false })
    try {
      const { run, error, stored } = await fork(store.load(parent.id), {
        atStep: 2,
        patch: POLITE,
        store,
        cwd: project,
      })
      expect(error).toBeUndefined()
      // Zero requests for steps 0 and 1; steps 2 and 4 went live, both with the patched prompt.
      const sent = provider.requests.slice(before)
      expect(sent).toHaveLength(2)
      for (const r of sent) expect(systemOf(r.body)).toBe('You are the refund bot.\nBe polite.')
      expect(run.id).not.toBe(parent.id)
      expect(run.links).toEqual({ forkedFrom: parent.id, forkStep: 2, patch: POLITE })
      expect(run.steps.slice(0, 2)).toEqual(parent.steps.slice(0, 2))
      expect(run.status).toBe('ok')
      // The identical refund is served from the recording: the tool did not run again.
      expect(run.steps[3]).toMatchObject({ type: 'tool', name: 'issue_refund', result: { refunded: 10 } })
      expect(refundRuns()).toBe(1)
      expect(stored?.forkedFrom).toBe(parent.id)
      const saved = store.load(run.id)
      expect(saved.links).toEqual(run.links)
      const d = diffRuns(parent, run)
      expect(d.relation).toBe('fork')
      expect(d.forkStep).toBe(2)
      expect(d.firstDivergence?.a).toBe(2)
      expect(d.firstDivergence?.b).toBe(2)
    } finally {
      store.close()
    }
  })

  it('never runs a side-effect tool: a refund with other args is blocked and recorded as an attempt', async () => {
    const { run, error } = await fork(parent, { atStep: 2, patch: HALF, cwd: project })
    expect(error).toBeUndefined()
    expect(refundRuns()).toBe(1)
    expect(run.steps[3]).toMatchObject({
      type: 'tool',
      name: 'issue_refund',
      args: { order_id: 'A17', amount: 5 },
      sideEffects: true,
      blocked: true,
      error: { code: 'E_FORK_BLOCKED' },
    })
    expect(run.steps[3]?.type === 'tool' && run.steps[3].result).toBeUndefined()
    expect(run.output).toBe('The refund failed.')
  })

  it('sends the live calls to baseUrl', async () => {
    const other = await startScriptedProvider({ policy: refundModel })
    try {
      const before = provider.requests.length
      const { run, error } = await fork(parent, {
        atStep: 4,
        patch: POLITE,
        baseUrl: other.url,
        cwd: project,
      })
      expect(error).toBeUndefined()
      expect(provider.requests.length).toBe(before)
      expect(other.requests).toHaveLength(1)
      expect(other.requests[0]?.path).toBe('/v1/chat/completions')
      expect(systemOf(other.requests[0]?.body)).toBe('You are the refund bot.\nBe polite.')
      expect(run.steps.slice(0, 4)).toEqual(parent.steps.slice(0, 4))
    } finally {
      await other.close()
    }
  })

  it('rejects a step out of range', async () => {
    await expect(fork(parent, { atStep: 5, cwd: project })).rejects.toMatchObject({ code: 'E_FORK_STEP' })
  })
})

describe('crashlab fork', () => {
  it('--dry-run prints the patch diff against the model request at or after step N and runs nothing', async () => {
    const before = provider.requests.length
    const count = await withStore((store) => store.list().length)
    const r = crashlab(['fork', parent.id, '--at', '1', '--system-append', 'Refund half.', '--dry-run'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout.replaceAll(parent.id, '<id>')).toMatchInlineSnapshot(`
      "dry run: the patch against the model request of step 2 of run <id>
      # system_prompt append
      --- a/system
      +++ b/system
      @@ -1 +1,2 @@ system
       You are the refund bot.
      +Refund half.
      nothing was run
      "
    `)
    expect(provider.requests.length).toBe(before)
    expect(await withStore((store) => store.list().length)).toBe(count)
  })

  it('forks through the built bin with a patch file and stores the fork', async () => {
    writeFileSync(join(project, 'fix.yaml'), 'kind: system_prompt\nop: append\ntext: Refund half.\n')
    const r = await crashlabLive(['fork', parent.id, '--at', '2', '--patch', 'fix.yaml'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(`forking run ${parent.id} (refund-bot) at step 2`)
    expect(r.stdout).toContain('2 steps replayed, 3 live · 1 blocked')
    const id = /stored as (\S+) \(fork of/.exec(r.stdout)?.[1] as string
    expect(r.stdout).toContain(`\`crashlab diff ${id}\``)
    const forked = await withStore((store) => store.load(id))
    expect(forked.links).toEqual({ forkedFrom: parent.id, forkStep: 2, patch: HALF })
    expect(refundRuns()).toBe(1)
  })

  it('usage errors: --at missing or out of range', () => {
    const missing = crashlab(['fork', parent.id])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('needs --at N')
    const out = crashlab(['fork', parent.id, '--at', '9'])
    expect(out.code).toBe(1)
    expect(out.stderr).toContain('--at must be a step of run')
  })
})
