import { describe, expect, it } from 'vitest'
import type { Run } from '../case/schema/run.ts'
import type { CrashCellResult } from './judge.ts'
import { renderCrashMatrix } from './render-matrix.ts'

const run = {
  steps: [
    { type: 'llm' },
    { type: 'tool', name: 'get_order' },
    { type: 'llm' },
    { type: 'tool', name: 'issue_refund' },
    { type: 'llm' },
  ],
} as unknown as Pick<Run, 'steps'>

const cells: CrashCellResult[] = [
  { step: 0, fault: { kind: 'rate_limit' }, outcome: 'survived', detail: 'finished' },
  { step: 2, fault: { kind: 'rate_limit' }, outcome: 'survived', detail: 'finished' },
  { step: 4, fault: { kind: 'rate_limit' }, outcome: 'failed', detail: 'RateLimitError: 429' },
  { step: 1, fault: { kind: 'tool_html_error' }, outcome: 'failed', detail: 'TypeError: bad total' },
  { step: 3, fault: { kind: 'tool_html_error' }, outcome: 'diverged', detail: 'asked for llm #3' },
]

describe('renderCrashMatrix', () => {
  it('draws one row per fault and one narrow column per step, with what did not survive and the counts', () => {
    expect(renderCrashMatrix(cells, run)).toBe(
      [
        'steps: 0 llm · 1 get_order · 2 llm · 3 issue_refund · 4 llm',
        '                      0  1  2  3  4',
        '429 (retry-after 0s)  ✓  ·  ✓  ·  ✗',
        'tool HTML error       ·  ✗  ·  ~  ·',
        '✓ survived  ✗ failed  ~ diverged  · no cell',
        '',
        '✗ failed step 1 get_order × tool HTML error: TypeError: bad total',
        '~ diverged step 3 issue_refund × tool HTML error: asked for llm #3',
        '✗ failed step 4 llm × 429 (retry-after 0s): RateLimitError: 429',
        '',
        '5 cells: 2 survived, 2 failed, 1 diverged',
      ].join('\n'),
    )
  })

  it('draws the same matrix whatever order the cells finished in', () => {
    const shuffled = [cells[3], cells[0], cells[4], cells[2], cells[1]] as CrashCellResult[]
    // Rows keep the faults' first order, so a shuffle that changes which fault comes first is not the
    // same matrix; one that keeps it is.
    const sameFirstFault = [cells[0], cells[3], cells[4], cells[2], cells[1]] as CrashCellResult[]
    expect(renderCrashMatrix(sameFirstFault, run)).toBe(renderCrashMatrix(cells, run))
    expect(renderCrashMatrix(shuffled, run).split('\n')[2]).toBe('tool HTML error       ·  ✗  ·  ~  ·')
  })

  it('names steps from stepName when no run is given, and widens columns for two-digit steps', () => {
    const text = renderCrashMatrix(
      [
        { step: 3, fault: { kind: 'timeout' }, outcome: 'survived', detail: 'finished' },
        { step: 12, fault: { kind: 'timeout' }, outcome: 'survived', detail: 'finished' },
      ],
      undefined,
      { stepName: (i) => (i === 12 ? 'llm' : undefined) },
    )
    expect(text.split('\n').slice(0, 3)).toEqual(['steps: 3 · 12 llm', '          3  12', 'timeout   ✓   ✓'])
    expect(text).toMatch(/2 cells: 2 survived, 0 failed, 0 diverged$/)
  })

  it('says so when no fault fits a chosen step', () => {
    expect(renderCrashMatrix([], run)).toBe('No cell: none of the faults fits any of the steps chosen.')
  })
})
