import { describe, expect, test } from 'vitest'
import { refundRun } from '../../../matchers/internal/test-runs.ts'

// Baselines of a project whose plugin sets `cassetteDir: 'recordings'`: they live beside the cassettes,
// in recordings/a.spec.ts/. The parent test adds files no test owns and prunes them.
describe('refund', () => {
  test('clean', () => {
    expect(refundRun()).toMatchAgentCase()
  })

  test('named', () => {
    expect(refundRun({ amount: 20 })).toMatchAgentCase('final')
  })
})
