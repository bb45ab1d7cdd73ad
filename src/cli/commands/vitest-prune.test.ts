import { describe, expect, it } from 'vitest'
import { splitPruneFlag } from './vitest.ts'

describe('crashlab vitest: the --prune switch', () => {
  it('takes --prune out and forwards everything else to Vitest', () => {
    expect(splitPruneFlag(['--prune', 'run', '-t', 'refund'])).toEqual({
      prune: true,
      vitestArgs: ['run', '-t', 'refund'],
    })
    expect(splitPruneFlag(['run'])).toEqual({ prune: false, vitestArgs: ['run'] })
  })

  it('leaves what follows -- to Vitest untouched', () => {
    expect(splitPruneFlag(['run', '--', '--prune'])).toEqual({
      prune: false,
      vitestArgs: ['run', '--', '--prune'],
    })
  })
})
