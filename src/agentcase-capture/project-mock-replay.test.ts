import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadAgentCase, writeAgentCase } from '../case/agentcase/index.ts'
import { compareAgentCases } from '../diff/index.ts'
import { recordSample, SAMPLE, sampleCase, scratchDir } from './internal/test-sample-case.ts'
import { projectMockReplay } from './project-mock-replay.ts'
import { runMockReplay } from './run-mock-replay.ts'

const { dir, cleanup } = scratchDir('project-replay')
afterAll(cleanup)

const sample = sampleCase(dir, 'sample.agentcase')
const at = new Date('2026-07-14T12:00:00.000Z')

describe('projectMockReplay', () => {
  it('keeps the execution id and the events, with a new case id and mock replay provenance', () => {
    const before = structuredClone(sample)
    const projected = projectMockReplay(sample, { now: () => at })
    expect(projected.case_id).not.toBe(sample.case_id)
    expect(projected.execution_id).toBe(sample.execution_id)
    expect(projected.created_at).toBe(at.toISOString())
    expect(projected.events).toEqual(sample.events)
    expect(projected).toMatchObject({ outcome: sample.outcome, completeness: 'complete' })
    expect(projected.replay).toMatchObject({
      mode: 'mock',
      source_case_id: sample.case_id,
      replayed_at: at.toISOString(),
      determinism_guarantee: 'deterministic',
      live_side_effects_approved: false,
    })
    expect(projected.replay!.substitutions.map((s) => s.target)).toEqual([
      'model.provider_calls',
      'tool.side_effects',
    ])
    // Only volatile locations differ, so the projection is not a regression of its source.
    expect(compareAgentCases(sample, projected).equal).toBe(true)
    expect(sample).toEqual(before)
    projected.events[1]!.payload.model = 'edited'
    expect(sample.events[1]!.payload.model).toBe('tiny-7b')
  })

  it('writes and re-reads equal, as the CLI does', () => {
    const output = join(dir, 'replayed.agentcase')
    const written = writeAgentCase(output, projectMockReplay(loadAgentCase(join(dir, 'sample.agentcase'))))
    expect(loadAgentCase(output)).toEqual(written)
  })

  it('a projection can itself be mock-replayed, but not projected again', async () => {
    const projected = projectMockReplay(sample)
    const result = await runMockReplay(projected, (ctx) => {
      ctx.modelResponse(SAMPLE.first)
      ctx.toolResult(SAMPLE.tool.name, SAMPLE.tool.args)
      return ctx.modelResponse(SAMPLE.second)
    })
    expect(result.value).toEqual({ text: 'Refund issued' })
    expect(() => projectMockReplay(projected)).toThrow(
      expect.objectContaining({ code: 'E_MOCK_SOURCE', message: expect.stringContaining(sample.case_id) }),
    )
  })

  it('refuses a request without its answer, naming the event (E_MOCK_MISSING)', () => {
    const unanswered = sampleCase(dir, 'missing.agentcase', (s) => {
      recordSample(s)
      s.toolCall({ name: 'issue_refund', arguments: { amount: 49 } })
    })
    expect(() => projectMockReplay(unanswered, { source: 'missing.agentcase' })).toThrow(
      expect.objectContaining({
        code: 'E_MOCK_MISSING',
        message: expect.stringContaining(
          `tool.call #7 "issue_refund" (event ${unanswered.events[7]!.event_id})`,
        ),
      }),
    )
  })

  it('refuses an incomplete capture unless allowed (E_MOCK_SOURCE)', () => {
    const degraded = sampleCase(dir, 'degraded.agentcase', (s) => {
      recordSample(s)
      s.message({ role: 'user', content: 10n })
    })
    expect(() => projectMockReplay(degraded)).toThrow(expect.objectContaining({ code: 'E_MOCK_SOURCE' }))
    expect(projectMockReplay(degraded, { allowIncomplete: true }).completeness).toBe('degraded')
  })

  it('refuses an invalid case with the reader’s own error', () => {
    const broken = { ...structuredClone(sample), events: sample.events.slice(1) }
    expect(() => projectMockReplay(broken)).toThrow(expect.objectContaining({ code: 'E_AGENTCASE_SEQUENCE' }))
  })
})
