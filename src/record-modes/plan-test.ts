import { forkPolicy, type TestOverride } from './fork-policy.ts'
import { offMode } from './off-mode.ts'
import { strategyFor } from './registry.ts'
import type { CassetteInputs, CommonSessionOptions, RecordMode, RecordPlan } from './types.ts'

/**
 * What decides one test's plan.
 *
 * @example
 * const inputs: PlanTestInputs = { mode: 'missing', cassette: { path, exists: existsSync(path) }, common }
 */
export interface PlanTestInputs {
  mode: RecordMode
  /** The test opted out of recording (`live()`): it runs as in `off`, whatever the mode. */
  live?: boolean
  /** The run this test replays instead of its cassette (`crashlab replay` / `crashlab fork`); read only when needed. */
  override?: () => TestOverride | undefined
  cassette: CassetteInputs
  common: CommonSessionOptions
}

/**
 * The record-mode decision for one test, in order: `off` and `live()` tests run live; the test that
 * `crashlab replay`/`crashlab fork` targets follows the fork policy; every other test follows its
 * mode's strategy.
 *
 * @example
 * const plan = planTest({ mode: 'replay', cassette: { path, exists: false }, common })
 * const session = new Session(plan.session)
 */
export function planTest(inputs: PlanTestInputs): RecordPlan {
  const { mode, cassette, common } = inputs
  if (mode === 'off' || inputs.live === true) return offMode.open(cassette, common)
  const override = inputs.override?.()
  if (override) return forkPolicy.open(override, common)
  return strategyFor(mode).open(cassette, common)
}
