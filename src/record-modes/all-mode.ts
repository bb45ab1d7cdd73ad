import { recordPlan } from './internal/plans.ts'
import type { RecordModeStrategy } from './types.ts'

/**
 * `all`: every test the run touches is recorded again, live, whether it has a cassette or not, and its
 * cassette is written (or overwritten) when it ends, if it called anything. Production capture
 * (`record()`) is this mode too: it always records.
 *
 * @example
 * const plan = allMode.open({ path }, common)
 * new Session(plan.session) // mode 'record'
 */
export const allMode: RecordModeStrategy = {
  mode: 'all',
  summary: 'records every test again and overwrites its cassette',
  open(cassette, common) {
    return recordPlan(cassette, common)
  },
}
