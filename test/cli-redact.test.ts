import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { toAgentCase } from '../src/case/agentcase/to-agent-case.ts'
import { writeAgentCase } from '../src/case/agentcase/write-agent-case.ts'
import { loadCassette } from '../src/case/cassette-load.ts'
import { writeCassette } from '../src/case/cassette-write.ts'
import type { LlmStep } from '../src/case/schema/step.ts'
import { runInSession } from '../src/engine/context.ts'
import { Session } from '../src/engine/session.ts'
import { wrap } from '../src/engine/wrap.ts'
import { createRedactor } from '../src/redact/create-redactor.ts'
import { startScriptedProvider } from '../src/testing/start-scripted-provider.ts'
import type { ScriptedProvider } from '../src/testing/types.ts'
import { runBinSync } from './helpers/built-bin.ts'

// Built at run time: no whole key-shaped literal in the repository.
const KEY = `sk-${'proj'}-Rk8vQ2mZp4XnL7wT9yBc1HdJ6sFgWp30Ke`

let provider: ScriptedProvider
let dir: string
let recordedUnderTodaysRules: string

async function record(redactor?: ReturnType<typeof createRedactor>) {
  const openai = wrap(new OpenAI({ baseURL: `${provider.url}/v1`, apiKey: 'test', maxRetries: 0 }))
  const session = new Session({ mode: 'record', name: 'leaky', ...(redactor ? { redactor } : {}) })
  await runInSession(session, () =>
    openai.chat.completions.create({
      model: 'gpt-5-mini',
      messages: [{ role: 'user', content: `deploy with ${KEY} please` }],
    }),
  )
  return session.finish({ output: `used ${KEY}` })
}

beforeAll(async () => {
  provider = await startScriptedProvider({ policy: () => ({ text: 'done' }) })
  dir = mkdtempSync(join(tmpdir(), 'crashlab-redact-cli-'))
  const weak = createRedactor({ useDefaults: false, useGlobalRules: false })
  // What an older version (weaker rules) wrote and a user committed.
  const run = await record(weak)
  mkdirSync(join(dir, '__cassettes__'))
  writeCassette(join(dir, '__cassettes__', 'leaky.cassette.json'), run, {
    redactor: weak,
    onWarning: () => {},
  })
  writeAgentCase(join(dir, 'baselines', 'leaky.agentcase'), toAgentCase(run), { redactor: weak })
  writeFileSync(join(dir, '__cassettes__', 'other.json'), '{"hello":"world"}\n')
  // The same call recorded today: the hash a replay looks for.
  const today = await record()
  recordedUnderTodaysRules = (today.steps[0] as LlmStep).request.requestHash
})

afterAll(async () => {
  await provider.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('crashlab redact', () => {
  it('--check reports what it would remove, writes nothing, and exits 1', () => {
    const before = readFileSync(join(dir, '__cassettes__', 'leaky.cassette.json'), 'utf8')
    expect(before).toContain(KEY)
    const r = runBinSync(dir, {}, 'redact', '__cassettes__', 'baselines', '--check')
    expect(r.code).toBe(1)
    expect(r.stdout).toMatch(/would rewrite __cassettes__\/leaky\.cassette\.json: \d+ removed \(.*openai-key/)
    expect(r.stdout).toMatch(/would rewrite baselines\/leaky\.agentcase/)
    expect(r.stdout).toContain('skipped __cassettes__/other.json: neither a cassette nor an AgentCase')
    expect(readFileSync(join(dir, '__cassettes__', 'leaky.cassette.json'), 'utf8')).toBe(before)
  })

  it('rewrites cassettes and baselines under the current rules, and the cassette keeps its replay hash', () => {
    const r = runBinSync(dir, {}, 'redact', '__cassettes__', 'baselines')
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/rewrote __cassettes__\/leaky\.cassette\.json/)
    expect(r.stdout).toContain('rotate it')
    for (const file of ['__cassettes__/leaky.cassette.json', 'baselines/leaky.agentcase']) {
      const text = readFileSync(join(dir, file), 'utf8')
      expect(text).not.toContain(KEY.slice(8, 20))
    }
    const cassette = loadCassette(join(dir, '__cassettes__', 'leaky.cassette.json'))
    expect((cassette.run.steps[0] as LlmStep).request.requestHash).toBe(recordedUnderTodaysRules)
    expect(cassette.run.redaction.records.some((rec) => rec.rule === 'openai-key')).toBe(true)
  })

  it('is idempotent: a second run finds nothing to remove', () => {
    const r = runBinSync(dir, {}, 'redact', '__cassettes__', 'baselines', '--check')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('0 values to remove')
  })

  it('reports a broken file with its error code and still does the others', () => {
    const bad = join(dir, 'bad')
    mkdirSync(bad)
    writeFileSync(join(bad, 'a.cassette.json'), '{"format":"crashlab.cassette","version":1,"run":{}}')
    writeFileSync(join(bad, 'b.json'), '{"x":1}')
    const r = runBinSync(dir, {}, 'redact', 'bad', '--json')
    expect(r.code).toBe(1)
    const report = JSON.parse(r.stdout) as { files: Array<{ status: string; reason?: string }> }
    expect(report.files.map((f) => f.status)).toEqual(['error', 'skipped'])
    expect(report.files[0]?.reason).toMatch(/^E_CASSETTE_/)
    expect(r.stderr).not.toMatch(/\n\s+at /)
  })

  it('names a missing path and the next step', () => {
    const r = runBinSync(dir, {}, 'redact', 'nowhere')
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('no file or folder at nowhere')
    expect(r.stderr).toContain('E_FILE_NOT_FOUND')
  })
})
