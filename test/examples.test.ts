import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { buildRefundRun, writeExample } from '../examples/hand-built-run.ts'
import { fromAgentCase, loadAgentCase, loadCassette } from '../src/index.ts'

const committed = resolve(import.meta.dirname, '..', '__cassettes__')
const dir = mkdtempSync(join(tmpdir(), 'crashlab-example-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('examples/hand-built-run.ts', () => {
  const out = writeExample(dir)

  it('writes the same bytes as the committed cassette and AgentCase (canonical output is stable)', () => {
    // If this fails after a deliberate change to the model or the writer, regenerate with
    // `node examples/hand-built-run.ts` and review the diff of __cassettes__/.
    expect(readFileSync(out.cassette, 'utf8')).toBe(
      readFileSync(join(committed, 'hand-built-run.cassette.json'), 'utf8'),
    )
    expect(readFileSync(out.agentcase, 'utf8')).toBe(
      readFileSync(join(committed, 'hand-built-run.agentcase'), 'utf8'),
    )
  })

  it('never writes the API key that the run carries in memory', () => {
    const key = 'sk-proj-EXAMPLEexampleEXAMPLEexample0000'
    expect(JSON.stringify(buildRefundRun())).toContain(key)
    for (const file of [out.cassette, out.agentcase]) expect(readFileSync(file, 'utf8')).not.toContain(key)
    const { run } = loadCassette(out.cassette)
    expect(run.redaction.status).toBe('redacted')
    expect(run.redaction.records.map((r) => r.path)).toContain(
      '/run/steps/0/request/wire/headers/authorization',
    )
  })

  it('loads back: the cassette, and the AgentCase converted to a run with every step', () => {
    const { run } = loadCassette(out.cassette)
    expect(run.steps.map((s) => s.type)).toEqual(['llm', 'tool', 'llm'])
    expect(fromAgentCase(loadAgentCase(out.agentcase))).toEqual(run)
  })
})
