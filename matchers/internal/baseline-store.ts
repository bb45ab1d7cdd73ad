import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { MatcherState } from 'vitest'
import { type AgentCase, writeAgentCase } from '../../src/internal.ts'

/**
 * A baseline is compared with the case as it would be written, not with the raw export: the writer
 * redacts free JSON (an API key in a recorded header, a token in a tool argument), so a raw candidate
 * would always differ from its own baseline at every redacted value. Writing through `writeAgentCase`
 * into a scratch directory is the one way to get exactly the writer's output without a second copy of
 * its pipeline; the scratch file is removed at once.
 */

let scratch: string | undefined
let counter = 0

/**
 * The case `writeAgentCase` would write for `c`: validated and redacted.
 *
 * @example
 * const candidate = asWritten(toAgentCase(run))
 */
export function asWritten(c: AgentCase): AgentCase {
  if (scratch === undefined) {
    const made = mkdtempSync(join(tmpdir(), 'crashlab-matcher-'))
    scratch = made
    process.once('exit', () => rmSync(made, { recursive: true, force: true }))
  }
  const file = join(scratch, `candidate-${process.pid}-${counter++}.agentcase`)
  try {
    return writeAgentCase(file, c)
  } finally {
    rmSync(file, { force: true })
  }
}

/**
 * Counts a written or rewritten baseline in Vitest's snapshot summary (`1 written`, `1 updated`) the
 * way its own snapshot matchers do, through the public counters of the snapshot state, under the key of
 * the baseline's test (`testId`: its task id, or its name when no id is known). The key matters: Vitest
 * clears a test's counts when it retries that test, so a count filed under another test (the global
 * `expect`'s under `test.concurrent`) would survive a retry or vanish with someone else's. Does nothing
 * outside Vitest's runner.
 *
 * @example
 * countBaseline(this, 'added', test.id ?? test.name)
 */
export function countBaseline(
  state: { snapshotState?: unknown },
  what: 'added' | 'updated' | 'matched',
  testId: string,
): void {
  const counters = (
    state.snapshotState as Record<string, { increment?: (key: string) => void }> | undefined
  )?.[what]
  if (typeof counters?.increment !== 'function') return
  counters.increment(testId)
}

/**
 * Whether a matcher may write a baseline, as Vitest itself decides for snapshots: `all` with `-u`
 * (rewrite every baseline), `new` locally (write missing ones only), `none` under CI (write nothing, a
 * missing baseline fails). Vitest 5 exposes the policy on the snapshot state as the public getter
 * `snapshotUpdateState`; outside Vitest's runner there is no snapshot state, and `process.env.CI`
 * decides as Vitest's own default does.
 */

/**
 * The update policy of a baseline matcher.
 *
 * @example
 * const policy: UpdatePolicy = 'new'
 */
export type UpdatePolicy = 'all' | 'new' | 'none'

/**
 * The policy in force for the matcher call whose state is `state`.
 *
 * @example
 * if (updatePolicy(this) === 'none') return { pass: false, message: () => 'run vitest -u locally' }
 */
export function updatePolicy(state: Pick<MatcherState, 'snapshotState'>): UpdatePolicy {
  const fromVitest = (state.snapshotState as { snapshotUpdateState?: unknown } | undefined)
    ?.snapshotUpdateState
  if (fromVitest === 'all' || fromVitest === 'new' || fromVitest === 'none') return fromVitest
  const ci = process.env.CI
  return ci !== undefined && ci !== '' && ci !== '0' && ci.toLowerCase() !== 'false' ? 'none' : 'new'
}
