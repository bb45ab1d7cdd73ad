import { describe, expect, it } from 'vitest'
import { createRun } from '../case/create-run.ts'
import { Session } from '../engine/session.ts'
import { CrashlabError } from '../errors.ts'
import { markFailed, replayFailureOf } from './mark-failed.ts'

describe('markFailed and replayFailureOf', () => {
  it('marks the run failed with the error, keeping a crashlab code', () => {
    const run = { ...createRun({ name: 'bot' }), status: 'ok' as const, output: 'fine' }
    const failed = markFailed(run, new CrashlabError('E_DIVERGENCE', 'diverged at step 2'))
    expect(failed).toMatchObject({ status: 'error', output: null, error: { code: 'E_DIVERGENCE' } })
    expect(markFailed(run, 'plain').error).toEqual({ name: 'Error', message: 'plain' })
    expect(run.status).toBe('ok')
  })

  it('names the halt first, never a capture failure', () => {
    const session = new Session({ mode: 'record' })
    session.fail(new CrashlabError('E_CAPTURE', 'a hook threw'))
    expect(replayFailureOf(session)).toBeUndefined()
    const divergence = new CrashlabError('E_DIVERGENCE', 'diverged')
    session.fail(divergence)
    expect(replayFailureOf(session)).toBe(divergence)
    const halt = new CrashlabError('E_CIRCUIT_OPEN', 'stopped')
    session.halt(halt)
    expect(replayFailureOf(session)).toBe(halt)
  })
})
