import { describe, expect, it } from 'vitest'
import { findVitestBin, splitRecordFlag } from '../src/cli/commands/vitest.ts'

describe('crashlab vitest: the --record switch', () => {
  it('takes --record out and forwards everything else to Vitest', () => {
    expect(splitRecordFlag(['--record', 'run', '--reporter=dot', 'refund'])).toEqual({
      mode: 'all',
      vitestArgs: ['run', '--reporter=dot', 'refund'],
    })
    expect(splitRecordFlag(['run', '--record=missing'])).toEqual({ mode: 'missing', vitestArgs: ['run'] })
    expect(splitRecordFlag(['run'])).toEqual({ mode: undefined, vitestArgs: ['run'] })
  })

  it('leaves what follows -- to Vitest untouched', () => {
    expect(splitRecordFlag(['run', '--', '--record'])).toEqual({
      mode: undefined,
      vitestArgs: ['run', '--', '--record'],
    })
  })

  it('rejects an unknown mode', () => {
    expect(() => splitRecordFlag(['--record=often'])).toThrow('--record=often is not a record mode')
  })

  it("finds the project's Vitest", () => {
    expect(findVitestBin(process.cwd())).toMatch(/node_modules\/vitest\/vitest\.mjs$/)
    expect(findVitestBin('/')).toBeUndefined()
  })
})
