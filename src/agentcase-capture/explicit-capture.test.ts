import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import {
  fromAgentCase,
  loadAgentCase,
  validateAgentCase,
  validateAgentCasePayloads,
} from '../case/agentcase/index.ts'
import { CrashlabError } from '../errors.ts'
import { createRedactor } from '../redact/index.ts'
import { captureCase } from './explicit-capture.ts'
import { recordSample, SAMPLE, sampleCase, scratchDir } from './internal/test-sample-case.ts'

const { dir, cleanup } = scratchDir('capture')
afterAll(cleanup)

const OPENAI_KEY = 'sk-proj-AbCdEf1234567890XyZabcDEF'
const BEARER = 'Bearer s3cr3t-t0k3n-abcdefgh'

describe('captureCase', () => {
  it('writes a case that validates, meets the payload contracts and re-reads equal', async () => {
    const output = join(dir, 'round-trip.agentcase')
    const session = captureCase({ output, name: 'refund-bot', input: 'Refund A17', provider: 'local' })
    const value = await session.run((s) => {
      s.message({ role: 'user', content: 'Refund A17' })
      recordSample(s)
      s.retry({ attempt: 1, reason: 'HTTP 429', delayMs: 10 })
      return 'done'
    })
    expect(value).toBe('done')
    const written = session.close() // idempotent: the case as written
    const reread = loadAgentCase(output)
    expect(reread).toEqual(written)
    expect(validateAgentCase(JSON.parse(readFileSync(output, 'utf8')))).toEqual(written)
    expect(validateAgentCasePayloads(reread)).toEqual([])
    expect(reread.events.map((e) => e.event_type)).toEqual([
      'execution.start',
      'message',
      'model.request',
      'model.response',
      'tool.call',
      'tool.result',
      'model.request',
      'model.response',
      'retry',
      'execution.end',
    ])
    expect(reread.events.map((e) => e.sequence)).toEqual([...reread.events.keys()])
    const [start, , req, res, call, result] = reread.events
    expect(start!.payload).toMatchObject({ name: 'refund-bot', input: 'Refund A17', process_id: process.pid })
    expect(res!.parent_event_id).toBe(req!.event_id)
    expect(call!.parent_event_id).toBe(res!.event_id)
    expect(result!.parent_event_id).toBe(call!.event_id)
    expect(result!.payload).toMatchObject({
      name: 'get_order',
      call_id: call!.payload.call_id,
      status: 'success',
    })
    expect(res!.payload).toMatchObject({ provider: 'local', model: 'tiny-7b' }) // copied from the request
    expect(reread).toMatchObject({ outcome: 'success', completeness: 'complete', replay: null })
    expect(reread.events.at(-1)!.payload.outcome).toBe('success')
    expect(reread.metadata.provider).toEqual({ provider_id: 'local' })
    // A foreign-style case crashlab itself can import: two llm steps and a tool step.
    expect(fromAgentCase(reread).steps.map((s) => s.type)).toEqual(['llm', 'tool', 'llm'])
  })

  it('records the exception of a failing run, writes the case and rethrows the same error', async () => {
    const output = join(dir, 'failing.agentcase')
    const boom = new RangeError('refund above the limit')
    await expect(
      captureCase({ output }).run((s) => {
        s.modelRequest(SAMPLE.first)
        throw boom
      }),
    ).rejects.toBe(boom)
    const c = loadAgentCase(output)
    const exception = c.events.find((e) => e.event_type === 'exception')!
    expect(exception.payload).toMatchObject({
      exception_type: 'RangeError',
      message: 'refund above the limit',
      handled: false,
    })
    expect(c.outcome).toBe('failure')
    expect(c.events.at(-1)!.payload.outcome).toBe('failure')
  })

  it("keeps the application's exception primary when close() itself fails", async () => {
    const blocker = join(dir, 'not-a-folder')
    writeFileSync(blocker, 'a file where the output folder should be')
    const output = join(blocker, 'failure.agentcase')
    const onWarning = vi.fn()
    const boom = new Error('the agent crashed')
    await expect(
      captureCase({ output, onWarning }).run(() => {
        throw boom
      }),
    ).rejects.toBe(boom)
    expect(onWarning).toHaveBeenCalledTimes(1)
    expect(onWarning.mock.calls[0]![0]).toMatch(/E_WRITE_FAILED/)
    expect(onWarning.mock.calls[0]![0]).toContain(output)
    expect(existsSync(output)).toBe(false)
  })

  it('throws the write failure when no application error is primary, and retries on a later close', () => {
    const folder = join(dir, 'retry')
    writeFileSync(folder, 'blocks the folder')
    const session = captureCase({ output: join(folder, 'x.agentcase') })
    session.modelRequest(SAMPLE.first)
    expect(() => session.close()).toThrow(expect.objectContaining({ code: 'E_WRITE_FAILED' }))
    expect(session.closed).toBe(true)
    expect(() => session.message({ role: 'user', content: 'late' })).toThrow(/after close/)
    // The blocker goes away: the same finalized case is written by the next close.
    rmSync(folder)
    const written = session.close()
    expect(loadAgentCase(join(folder, 'x.agentcase'))).toEqual(written)
  })

  it('writes atomically: a failed write leaves the old file and no temp file', () => {
    const output = join(dir, 'atomic', 'case.agentcase')
    const first = sampleCase(join(dir, 'atomic'), 'case.agentcase')
    const before = readFileSync(output, 'utf8')
    const session = captureCase({ output, maxBytes: 200 })
    recordSample(session)
    expect(() => session.close()).toThrow(expect.objectContaining({ code: 'E_AGENTCASE_TOO_LARGE' }))
    expect(readFileSync(output, 'utf8')).toBe(before)
    expect(loadAgentCase(output).case_id).toBe(first.case_id)
    expect(readdirSync(join(dir, 'atomic'))).toEqual(['case.agentcase'])
  })

  it('redacts secrets before anything reaches disk', () => {
    const output = join(dir, 'secrets.agentcase')
    const s = captureCase({ output, metadata: { access_token: 'tok-1234567890' } })
    const req = s.modelRequest({
      provider: 'local',
      model: 'tiny',
      input: { prompt: `call with ${OPENAI_KEY}` },
      parameters: { headers: { authorization: BEARER } },
    })
    s.modelResponse({ parentEventId: req, output: { text: 'ok' } })
    const call = s.toolCall({ name: 'crm', arguments: { api_key: 'plain-value-1', customer: 'Ada' } })
    s.toolResult({ parentEventId: call, result: { note: BEARER } })
    const written = s.close()
    const text = readFileSync(output, 'utf8')
    for (const secret of [OPENAI_KEY, 's3cr3t-t0k3n-abcdefgh', 'plain-value-1', 'tok-1234567890']) {
      expect(text).not.toContain(secret)
    }
    expect(text).toContain('Ada')
    expect(written.redaction.status).toBe('redacted')
    expect(written.redaction.records.map((r) => r.field_path)).toEqual(
      expect.arrayContaining([
        '/events/1/payload/input/prompt',
        '/events/1/payload/parameters/headers/authorization',
        '/events/3/payload/arguments/api_key',
        '/metadata/user_metadata/access_token',
      ]),
    )
    expect(written.events[1]!.redaction_status).toBe('redacted')
    expect(loadAgentCase(output)).toEqual(written)
  })

  it('applies a custom redactor', () => {
    const output = join(dir, 'custom-rules.agentcase')
    const redactor = createRedactor({ keys: ['customer'] })
    const s = captureCase({ output, redactor })
    const call = s.toolCall({ name: 'crm', arguments: { customer: 'Ada Lovelace' } })
    s.toolResult({ parentEventId: call, result: 'ok' })
    s.close()
    expect(readFileSync(output, 'utf8')).not.toContain('Ada Lovelace')
  })

  it('sets outcome failure and the reason on a logical failure', () => {
    const c = sampleCase(dir, 'logical.agentcase', (s) => {
      recordSample(s)
      s.logicalFailure('refund above the limit', { details: { amount: 490 } })
    })
    expect(c.outcome).toBe('failure')
    expect(c.events.at(-2)!.payload).toEqual({
      kind: 'crashlab.logical_failure',
      reason: 'refund above the limit',
      details: { amount: 490 },
    })
    expect(c.events.at(-1)!.payload).toMatchObject({ outcome: 'failure', reason: 'refund above the limit' })
  })

  it('leaves out what JSON cannot carry, says where, and marks the case degraded', () => {
    const c = sampleCase(dir, 'lossy.agentcase', (s) => {
      const call = s.toolCall({ name: 'calc', arguments: { n: 10n, cb: () => 1, ok: 1 } })
      s.toolResult({ parentEventId: call, result: Number.NaN })
    })
    expect(c.completeness).toBe('degraded')
    expect(c.events[1]).toMatchObject({ capture_status: 'partial', payload: { arguments: { ok: 1 } } })
    expect(c.extensions['dev.crashlab.capture']).toEqual({
      schema: 1,
      dropped_values: [
        '$.events[1].payload.arguments.n',
        '$.events[1].payload.arguments.cb',
        '$.events[2].payload.result',
      ],
    })
  })

  it('refuses misuse with E_CAPTURE_USAGE, naming the event', () => {
    const s = captureCase({ output: join(dir, 'misuse.agentcase') })
    const req = s.modelRequest(SAMPLE.first)
    const call = s.toolCall({ name: 'get_order', arguments: {} })
    const usage = (fn: () => unknown) => {
      try {
        fn()
      } catch (err) {
        expect(err).toBeInstanceOf(CrashlabError)
        expect((err as CrashlabError).code).toBe('E_CAPTURE_USAGE')
        return (err as Error).message
      }
      throw new Error('expected E_CAPTURE_USAGE')
    }
    expect(usage(() => s.modelResponse({ parentEventId: 'nope', output: 1 }))).toMatch(
      /"nope" is not an event/,
    )
    expect(usage(() => s.modelResponse({ parentEventId: call, output: 1 }))).toContain(
      `${call} is the tool.call event #2`,
    )
    s.modelResponse({ parentEventId: req, output: 1 })
    expect(usage(() => s.modelResponse({ parentEventId: req, output: 2 }))).toContain(
      'already has its model.response',
    )
    expect(usage(() => s.toolResult({ parentEventId: call, status: 'failure' }))).toMatch(/needs "error"/)
    expect(usage(() => s.retry({ attempt: 0 }))).toMatch(/integer ≥ 1/)
    expect(() => captureCase({} as never)).toThrow(/needs the path/)
  })
})
