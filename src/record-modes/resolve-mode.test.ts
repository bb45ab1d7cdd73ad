import { describe, expect, it } from 'vitest'
import { isCrashlabError } from '../errors.ts'
import { parseMode } from './parse-mode.ts'
import { resolveMode } from './resolve-mode.ts'

describe('resolveMode', () => {
  it('defaults to replay when Vitest writes no snapshots (CI), to missing otherwise', () => {
    expect(resolveMode({ env: {}, argv: [], updateSnapshot: 'none' })).toEqual({
      mode: 'replay',
      source: 'default under CI',
    })
    expect(resolveMode({ env: {}, argv: [], updateSnapshot: 'new' }).mode).toBe('missing')
    expect(resolveMode({ env: {}, argv: [], updateSnapshot: 'all' }).mode).toBe('missing')
  })

  it('reads --record after -- on the command line: bare means all', () => {
    expect(
      resolveMode({ env: {}, argv: ['node', 'vitest', 'run', '--', '--record'], updateSnapshot: 'none' })
        .mode,
    ).toBe('all')
    expect(resolveMode({ env: {}, argv: ['--record=missing'], updateSnapshot: 'none' }).mode).toBe('missing')
  })

  it('reads vitest --mode record as all', () => {
    expect(resolveMode({ env: {}, argv: [], viteMode: 'record', updateSnapshot: 'none' })).toEqual({
      mode: 'all',
      source: '--mode record',
    })
    expect(resolveMode({ env: {}, argv: [], viteMode: 'test', updateSnapshot: 'none' }).mode).toBe('replay')
  })

  it('lets CRASHLAB_RECORD win over every other switch, and switches win over the option', () => {
    const argv = ['--', '--record']
    expect(
      resolveMode({ env: { CRASHLAB_RECORD: 'off' }, argv, viteMode: 'record', option: 'all' }).mode,
    ).toBe('off')
    expect(resolveMode({ env: {}, argv, option: 'replay' }).mode).toBe('all')
    expect(resolveMode({ env: {}, argv: [], option: 'replay', updateSnapshot: 'new' }).mode).toBe('replay')
    expect(resolveMode({ env: { CRASHLAB_RECORD: '' }, argv: [], updateSnapshot: 'none' }).mode).toBe(
      'replay',
    )
  })

  it('accepts diverged from every switch: CRASHLAB_RECORD, --record=diverged, --mode record:diverged, the option', () => {
    expect(resolveMode({ env: { CRASHLAB_RECORD: 'diverged' }, argv: [], updateSnapshot: 'none' })).toEqual({
      mode: 'diverged',
      source: 'CRASHLAB_RECORD=diverged',
    })
    expect(resolveMode({ env: {}, argv: ['vitest', 'run', '--', '--record=diverged'] }).mode).toBe('diverged')
    expect(resolveMode({ env: {}, argv: [], viteMode: 'record:diverged', updateSnapshot: 'none' })).toEqual({
      mode: 'diverged',
      source: '--mode record:diverged',
    })
    expect(resolveMode({ env: {}, argv: [], viteMode: 'record:missing' }).mode).toBe('missing')
    expect(resolveMode({ env: {}, argv: [], option: 'diverged', updateSnapshot: 'none' }).mode).toBe(
      'diverged',
    )
    expect(() => resolveMode({ env: {}, argv: [], viteMode: 'record:later' })).toThrow(
      '--mode record:later is "later", which is not a record mode: use one of replay, missing, all, diverged, off',
    )
  })

  it('rejects an unknown mode with E_RECORD_MODE, naming where it came from', () => {
    expect(parseMode('1', 'x')).toBe('all')
    expect(parseMode(' Missing ', 'x')).toBe('missing')
    try {
      resolveMode({ env: { CRASHLAB_RECORD: 'sometimes' }, argv: [] })
      expect.unreachable()
    } catch (error) {
      expect(isCrashlabError(error, 'E_RECORD_MODE')).toBe(true)
      expect((error as Error).message).toContain('CRASHLAB_RECORD is "sometimes"')
    }
  })
})
