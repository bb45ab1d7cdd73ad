import { expect, test } from 'vitest'
import { refundRun } from '../../../matchers/internal/test-runs.ts'

// A second test file, so that a file filter and a shard leave one file out.
test('other', () => {
  expect(refundRun({ amount: 30 })).toMatchAgentCase()
})
