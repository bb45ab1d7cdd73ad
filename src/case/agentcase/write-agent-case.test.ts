import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { createRedactor } from '../../redact/index.ts'
import { normalizeNegativeZero, run as runArbitrary } from '../internal/test-arbitraries.ts'
import type { Run } from '../schema/run.ts'
import {
  type AgentCase,
  CRASHLAB_EXTENSION,
  fromAgentCase,
  loadAgentCase,
  parseAgentCase,
  serializeAgentCase,
  toAgentCase,
  writeAgentCase,
} from './index.ts'
import { buildSampleRun } from './internal/test-sample-run.ts'

const dir = mkdtempSync(join(tmpdir(), 'crashlab-agentcase-write-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const OPENAI_KEY = 'sk-proj-AbCdEf1234567890XyZabcDEF'
const BEARER = 'Bearer s3cr3t-t0k3n-abcdefgh'
const VALID = readFileSync(
  new URL('../../../test/fixtures/agentcase/valid-nonascii-nested.agentcase', import.meta.url),
)

/** The sample run with two live secrets: an OpenAI key in tool arguments, a bearer token in a header. */
function runWithSecrets(): Run {
  const run = buildSampleRun()
  const tool = run.steps[2]!
  if (tool.type === 'tool') tool.args = { id: 'A17', note: `use ${OPENAI_KEY} to call the API` }
  const http = run.steps[4]!
  if (http.type === 'http') http.request.headers = { authorization: BEARER, accept: 'application/json' }
  run.redaction = { status: 'none', records: [] }
  return run
}

const filesIn = (d: string) => readdirSync(d).sort()

describe('writeAgentCase', () => {
  it('redacts before writing and records what it replaced', () => {
    const path = join(dir, 'secrets.agentcase')
    const c = toAgentCase(runWithSecrets())
    expect(c.redaction.status).toBe('none')
    const written = writeAgentCase(path, c, { strictPayloads: true })

    const bytes = readFileSync(path, 'utf8')
    expect(bytes).not.toContain(OPENAI_KEY)
    expect(bytes).not.toContain('s3cr3t-t0k3n')
    expect(bytes).toBe(serializeAgentCase(written))

    const loaded = loadAgentCase(path)
    const callIndex = loaded.events.findIndex((e) => e.event_type === 'tool.call')
    const httpIndex = loaded.events.findIndex((e) => e.event_type === 'custom')
    expect(loaded.redaction.status).toBe('redacted')
    expect(loaded.redaction.records).toEqual(
      expect.arrayContaining([
        {
          field_path: `/events/${callIndex}/payload/arguments/note`,
          rule_id: 'openai-key',
          replacement_marker: '[REDACTED:openai-key]',
          irreversible: true,
        },
        {
          field_path: `/events/${httpIndex}/extensions/${CRASHLAB_EXTENSION}/step/request/headers/authorization`,
          rule_id: 'sensitive-key',
          replacement_marker: '[REDACTED:sensitive-key]',
          irreversible: true,
        },
      ]),
    )
    expect(loaded.events[callIndex]!.redaction_status).toBe('redacted')
    expect(loaded.events[httpIndex]!.redaction_status).toBe('redacted')
    expect(loaded.events[0]!.redaction_status).toBe('none')

    // The input case is not mutated, and the run still imports, with the markers in place of the secrets.
    expect(JSON.stringify(c)).toContain(OPENAI_KEY)
    const run = fromAgentCase(loaded)
    expect(run.steps[2]).toMatchObject({ args: { note: 'use [REDACTED:openai-key] to call the API' } })
  })

  it('keeps existing markers and records when a redacted case is written again', () => {
    const first = join(dir, 'again-1.agentcase')
    const second = join(dir, 'again-2.agentcase')
    const once = writeAgentCase(first, toAgentCase(runWithSecrets()))
    const twice = writeAgentCase(second, loadAgentCase(first))
    expect(twice.redaction.records).toEqual(once.redaction.records)
    expect(readFileSync(second)).toEqual(readFileSync(first))
  })

  it('marks the case partial when a rule fails, rather than writing the value', () => {
    const path = join(dir, 'partial.agentcase')
    const redactor = createRedactor({
      useGlobalRules: false,
      hooks: {
        explode: (v) => {
          if (v.includes('A17')) throw new Error('hook bug')
          return undefined
        },
      },
    })
    const written = writeAgentCase(path, parseAgentCase(VALID), { redactor })
    expect(written.redaction.status).toBe('partial')
    expect(written.completeness).toBe('partial')
    expect(written.redaction.potentially_sensitive_unredacted).toBe(true)
    expect(written.redaction.warnings.at(-1)).toContain('redaction rule failed')
    expect(written.events[1]!.redaction_status).toBe('partial')
    expect(readFileSync(path, 'utf8')).not.toContain('注文A17')
    expect(VALID.toString('utf8')).toContain('注文A17')
  })

  it('never writes an invalid case', () => {
    const path = join(dir, 'invalid.agentcase')
    const c = parseAgentCase(VALID)
    const duplicate: AgentCase = {
      ...c,
      events: c.events.map((e, i) => (i === 2 ? { ...e, event_id: c.events[1]!.event_id } : e)),
    }
    expect(() => writeAgentCase(path, duplicate)).toThrow(
      expect.objectContaining({ code: 'E_AGENTCASE_DUPLICATE_EVENT_ID' }),
    )
    const naive = { ...c, created_at: '2026-07-14T09:30:00' }
    expect(() => writeAgentCase(path, naive)).toThrow(
      expect.objectContaining({ code: 'E_AGENTCASE_INVALID' }),
    )
    const lying = { ...c, redaction: { ...c.redaction, status: 'none' as const } }
    expect(() => writeAgentCase(path, lying)).toThrow(
      expect.objectContaining({ code: 'E_AGENTCASE_REDACTION' }),
    )
    const nan = structuredClone(c)
    nan.events[1]!.payload.temperature = Number.NaN
    expect(() => writeAgentCase(path, nan)).toThrow(expect.objectContaining({ code: 'E_AGENTCASE_INVALID' }))
    expect(existsSync(path)).toBe(false)
  })

  it('enforces the payload contracts on request', () => {
    const path = join(dir, 'contracts.agentcase')
    const c = parseAgentCase(VALID)
    const broken = structuredClone(c)
    delete broken.events[1]!.payload.provider
    expect(() => writeAgentCase(path, broken, { strictPayloads: true })).toThrow(
      expect.objectContaining({ code: 'E_AGENTCASE_PAYLOAD' }),
    )
    expect(existsSync(path)).toBe(false)
    writeAgentCase(path, broken)
    expect(existsSync(path)).toBe(true)
  })

  it('leaves the old file and no temp file behind when the write fails', () => {
    const sub = join(dir, 'atomic')
    mkdirSync(sub)
    const target = join(sub, 'case.agentcase')
    writeFileSync(target, 'old')
    // A directory where the file should go: the rename fails after the temp file was written.
    const blocked = join(sub, 'blocked.agentcase')
    mkdirSync(blocked)
    expect(() => writeAgentCase(blocked, parseAgentCase(VALID))).toThrow(
      expect.objectContaining({ code: 'E_WRITE_FAILED' }),
    )
    expect(filesIn(sub)).toEqual(['blocked.agentcase', 'case.agentcase'])
    // Refused before any byte is written: the old file is untouched.
    expect(() => writeAgentCase(target, parseAgentCase(VALID), { maxBytes: 100 })).toThrow(
      expect.objectContaining({ code: 'E_AGENTCASE_TOO_LARGE' }),
    )
    expect(readFileSync(target, 'utf8')).toBe('old')
    expect(filesIn(sub)).toEqual(['blocked.agentcase', 'case.agentcase'])
  })

  it('writes the canonical form: one line, sorted keys, one trailing newline', () => {
    const path = join(dir, 'canonical.agentcase')
    writeAgentCase(path, parseAgentCase(VALID))
    expect(readFileSync(path)).toEqual(VALID)
  })

  it('writes any secret-free run so that it reads back unchanged (the redactor damages no ordinary data)', () => {
    // The cassette helper's arbitrary builds runs whose strings cannot look like secrets, so any change
    // after a write is redactor damage (a rule eating an id, a hash or crashlab's own extension data).
    const path = join(dir, 'property.agentcase')
    fc.assert(
      fc.property(runArbitrary, (run) => {
        const c = toAgentCase(run)
        const written = writeAgentCase(path, c, { strictPayloads: true })
        expect(written.redaction.records).toEqual(c.redaction.records)
        expect(fromAgentCase(loadAgentCase(path))).toEqual(normalizeNegativeZero(run))
      }),
      { numRuns: 150 },
    )
  })
})
