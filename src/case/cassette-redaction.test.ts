import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { plantSecrets, SECRET_CORPUS } from '../redact/test-corpus.ts'
import { loadCassette } from './cassette-load.ts'
import { writeCassette } from './cassette-write.ts'
import { buildRealisticRun } from './internal/test-runs.ts'
import type { Run } from './schema/run.ts'
import type { LlmStep, ToolStep } from './schema/step.ts'

const dir = mkdtempSync(join(tmpdir(), 'crashlab-redaction-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A valid run with `secret` in every kind of place a run carries text: headers, URL, bodies, SSE, tools, errors, keys. */
function runWithSecret(secret: string): Run {
  const run = buildRealisticRun({ steps: 4, seed: 21 })
  const said = `my key is ${secret}, keep it safe`
  const llm = run.steps.find((s): s is LlmStep => s.type === 'llm')!
  llm.request.wire.headers.authorization = `Bearer ${secret}`
  llm.request.wire.headers['x-trace-note'] = said
  llm.request.wire.url = `https://api.openai.com/v1/chat/completions?ref=${secret}`
  llm.request.wire.bodyText = JSON.stringify({ messages: [{ role: 'user', content: said }] })
  llm.request.normalized!.messages.push({ role: 'user', parts: [{ type: 'text', text: said }] })
  llm.response!.wire.chunks = [{ data: JSON.stringify({ choices: [{ delta: { content: said } }] }), atMs: 1 }]
  llm.error = { name: 'APIError', message: `401 for ${secret}` }
  const tool = run.steps.find((s): s is ToolStep => s.type === 'tool')!
  tool.args = { query: said, nested: [[secret]] }
  tool.result = { [secret]: 'a secret used as a key', note: said }
  run.input = said
  run.metadata = { planted: plantSecrets(secret) as never }
  return run
}

describe('writeCassette redacts before anything reaches the disk', () => {
  it('an sk-proj- key and an authorization header never reach the bytes, and run.redaction records them', () => {
    const key = SECRET_CORPUS.find((e) => e.id === 'openai-project-key')!.secret
    expect(key.startsWith('sk-proj-')).toBe(true)
    const run = buildRealisticRun({ steps: 3, seed: 5 })
    const llm = run.steps.find((s): s is LlmStep => s.type === 'llm')!
    llm.request.wire.headers.authorization = 'Bearer opaque-session-value-1234'
    run.input = `please use ${key} for this`
    const path = join(dir, 'planted.cassette.json')
    const written = writeCassette(path, run)

    const bytes = readFileSync(path, 'utf8')
    expect(bytes).not.toContain(key)
    expect(bytes).not.toContain('sk-proj-')
    expect(bytes).not.toContain('opaque-session-value-1234')
    expect(written.run.redaction.status).toBe('redacted')
    expect(written.run.redaction.records).toEqual(
      expect.arrayContaining([
        { path: `/run/steps/${llm.index}/request/wire/headers/authorization`, rule: 'sensitive-key' },
        { path: '/run/input', rule: 'openai-key' },
      ]),
    )
    // the records travel in the file, and the file is still a valid cassette
    expect(loadCassette(path).run.redaction).toEqual(written.run.redaction)
    // the caller's run still has its values
    expect(run.input).toContain(key)
  })

  it(`no secret of the corpus (${SECRET_CORPUS.length} formats) reaches the bytes, wherever it is planted`, () => {
    const leaks: string[] = []
    for (const { id, secret, core } of SECRET_CORPUS) {
      const path = join(dir, `${id}.cassette.json`)
      const written = writeCassette(path, runWithSecret(secret))
      const bytes = readFileSync(path, 'utf8')
      // JSON escapes newlines (the PEM key): look for the core as it is written, too
      if (bytes.includes(core) || bytes.includes(JSON.stringify(core).slice(1, -1))) leaks.push(id)
      expect(written.run.redaction.status, id).toBe('redacted')
      expect(written.run.redaction.records.length, id).toBeGreaterThan(5)
      expect(loadCassette(path)).toEqual(written)
    }
    expect(leaks).toEqual([])
  })
})
