import { describe, expect, it } from 'vitest'
import { mergeConfig } from './merge-config.ts'

describe('mergeConfig', () => {
  it('lets the nearer layer win key by key, nested objects merged', () => {
    const merged = mergeConfig(
      {
        checks: { maxSteps: 50, warnAt: 0.9, stepRepetition: { threshold: 3, critical: 6 } },
        store: { dir: '/a' },
      },
      undefined,
      { checks: { maxSteps: 20, stepRepetition: { critical: 4 } } },
    )
    expect(merged).toEqual({
      checks: { maxSteps: 20, warnAt: 0.9, stepRepetition: { threshold: 3, critical: 4 } },
      store: { dir: '/a' },
    })
  })

  it('a non-object value replaces (false turns a detector off), undefined keeps', () => {
    const merged = mergeConfig(
      { checks: { stepRepetition: { threshold: 3 }, maxSteps: 9 } },
      { checks: { stepRepetition: false, maxSteps: undefined } },
    )
    expect(merged.checks).toEqual({ stepRepetition: false, maxSteps: 9 })
  })

  it('adds up redaction rules of every layer', () => {
    const fileHook = (v: string) => v
    const merged = mergeConfig(
      { redaction: { keys: ['a'], patterns: [{ id: 'p1', pattern: /x/ }], hooks: { h1: fileHook } } },
      { redaction: { keys: ['b'], hooks: [{ id: 'h2', fn: fileHook }] } },
    )
    expect(merged.redaction?.keys).toEqual(['a', 'b'])
    expect(merged.redaction?.patterns?.map((p) => p.id)).toEqual(['p1'])
    expect((merged.redaction?.hooks as Array<{ id: string }> | undefined)?.map((h) => h.id)).toEqual([
      'h1',
      'h2',
    ])
  })
})
