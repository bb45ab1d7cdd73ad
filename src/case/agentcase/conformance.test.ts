import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { CrashlabError, type ErrorCode } from '../../errors.ts'
import { fromAgentCase, loadAgentCase, parseAgentCase, serializeAgentCase, toAgentCase } from './index.ts'

/**
 * The reference implementation's own conformance files, from the shared folder beside the repository
 * (`../shared/agentcase/fixtures`). They are not copied into the repository: the point is to test
 * against the reference's bytes, not a copy that could drift.
 */
const REPO_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..')
const SHARED = resolve(REPO_ROOT, '../shared/agentcase/fixtures')
const present = existsSync(SHARED)
if (!present) console.warn(`[crashlab] AgentCase conformance tests skipped: ${SHARED} is missing`)

const fixture = (name: string) => join(SHARED, name)

describe.skipIf(!present)('AgentCase 0.1 reference fixtures', () => {
  it('valid_minimal loads and re-serializes byte-identically', () => {
    const bytes = readFileSync(fixture('valid_minimal.agentcase'))
    const c = loadAgentCase(fixture('valid_minimal.agentcase'))
    expect(c.events).toHaveLength(7)
    expect(Buffer.from(serializeAgentCase(c), 'utf8').equals(bytes)).toBe(true)
  })

  const invalid: Array<[string, ErrorCode]> = [
    ['invalid_malformed.agentcase', 'E_AGENTCASE_MALFORMED'],
    ['invalid_unsupported_version.agentcase', 'E_AGENTCASE_VERSION'],
    ['invalid_duplicate_event_id.agentcase', 'E_AGENTCASE_DUPLICATE_EVENT_ID'],
    ['invalid_sequence.agentcase', 'E_AGENTCASE_SEQUENCE'],
    ['invalid_parent_reference.agentcase', 'E_AGENTCASE_PARENT_MISSING'],
  ]

  it.each(invalid)('%s is rejected with %s', (name, code) => {
    let error: unknown
    try {
      loadAgentCase(fixture(name))
    } catch (err) {
      error = err
    }
    expect(error).toBeInstanceOf(CrashlabError)
    expect((error as CrashlabError).code).toBe(code)
    expect((error as CrashlabError).message).toContain(name)
  })

  it('gives each invalid fixture its own code', () => {
    expect(new Set(invalid.map(([, code]) => code)).size).toBe(invalid.length)
  })

  it('says which version it supports, in the reference wording', () => {
    const bytes = readFileSync(fixture('invalid_unsupported_version.agentcase'))
    expect(() => parseAgentCase(bytes)).toThrow(
      "unsupported AgentCase format version '999.0'; supported: 0.1",
    )
  })

  it('imports valid_minimal as a sensible run', () => {
    const run = fromAgentCase(loadAgentCase(fixture('valid_minimal.agentcase')))
    expect(run.steps.map((s) => s.type)).toEqual(['llm', 'tool'])
    expect(run.steps[1]).toMatchObject({
      type: 'tool',
      name: 'get_weather',
      args: { city: 'Example City' },
      error: { name: 'SyntheticUpstreamTimeout', message: 'Synthetic weather service did not respond' },
    })
    expect(run).toMatchObject({
      name: 'fictional_agent.run',
      status: 'ok',
      outcome: 'fail',
      completeness: 'complete',
    })
    expect(run.metadata).toMatchObject({ scenario: 'fictional weather tool failure' })
    // The record follows its value: the request payload became the step's wire body.
    expect(run.redaction).toEqual({
      status: 'redacted',
      records: [
        { path: '/steps/0/request/wire/body/headers/authorization', rule: 'synthetic.authorization-header' },
      ],
    })
    // Exported again, it is a valid case with the same shape of events.
    const again = parseAgentCase(serializeAgentCase(toAgentCase(run)))
    expect(again.outcome).toBe('failure')
    expect(again.events.map((e) => e.event_type)).toEqual([
      'execution.start',
      'model.request',
      'model.response',
      'tool.call',
      'tool.result',
      'exception',
      'execution.end',
    ])
  })
})
