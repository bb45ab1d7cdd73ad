import { describe, expect, test } from 'vitest'
import { CrashlabError, DivergenceError, type Run, viewRun } from '../src/internal.ts'
import './index.ts'
import { refundRun } from './internal/test-runs.ts'

const REPLAY = Symbol.for('crashlab.replay')

/** A run carrying a fake replayer, as agentCase() attaches the real one (non-enumerable). */
function replayable(run: Run, replayer: (options?: unknown) => Promise<Run>): Run {
  Object.defineProperty(run, REPLAY, { value: replayer, enumerable: false, configurable: true })
  return run
}

describe('toReplayExactly', () => {
  test('passes when the replay gives the same requests, tool calls and output; .not fails saying so', async () => {
    const run = replayable(refundRun(), async () => refundRun())
    await expect(run).toReplayExactly()
    await expect(expect(run).not.toReplayExactly()).rejects.toThrow(
      /reproduced the run exactly: 3 LLM requests, 2 tool calls, the same output/,
    )
  })

  test('passes the options to the replayer and reads a RunView through its run', async () => {
    const seen: unknown[] = []
    const run = replayable(refundRun(), async (options) => {
      seen.push(options)
      return refundRun()
    })
    await expect(viewRun(run)).toReplayExactly({ allowUnused: true })
    expect(seen).toEqual([{ allowUnused: true }])
  })

  test('a changed tool argument is the first divergence, with its step and path; .not passes', async () => {
    const run = replayable(refundRun(), async () => refundRun({ amount: 490 }))
    await expect(run).not.toReplayExactly()
    await expect(expect(run).toReplayExactly()).rejects.toThrow(
      /diverged at step 3: recorded tool issue_refund\(.*49\}\), replayed tool issue_refund\(.*490\}\)\.\n\s+\$\.args\.amount: expected 49, got 490/,
    )
  })

  test('a changed request hash, a missing step and a different output are each reported', async () => {
    const changedHash = refundRun()
    const step = changedHash.steps[2]!
    if (step.type === 'llm') step.request.requestHash = 'sha256:changed'
    await expect(expect(replayable(refundRun(), async () => changedHash)).toReplayExactly()).rejects.toThrow(
      /diverged at step 2: recorded an LLM request sha256:0+3, replayed an LLM request sha256:changed/,
    )

    const shorter = refundRun()
    shorter.steps.pop()
    await expect(expect(replayable(refundRun(), async () => shorter)).toReplayExactly()).rejects.toThrow(
      /diverged at step 4: recorded an LLM request .*, replayed nothing/,
    )

    const reworded = refundRun({ answer: 'Done: $49 back on your card.' })
    await expect(expect(replayable(refundRun(), async () => reworded)).toReplayExactly()).rejects.toThrow(
      /different output .*\n\s+\$: expected "I have refunded \$49 for order A17\.", got "Done: \$49 back on your card\."/,
    )
  })

  test('a DivergenceError from the replayer is shown with its message', async () => {
    const divergence = new DivergenceError({
      where: 'test "refund"',
      stepIndex: 2,
      call: 'openai-chat chat.completions',
      nearestStep: 2,
      differences: [],
    })
    const run = replayable(refundRun(), async () => {
      throw divergence
    })
    await expect(expect(run).toReplayExactly()).rejects.toThrow(
      /the replay diverged:\n\[crashlab\] replay of test "refund" diverged at step 2/,
    )
    await expect(run).not.toReplayExactly()
  })

  test('another replay failure is shown as such', async () => {
    const run = replayable(refundRun(), async () => {
      throw new CrashlabError('E_REPLAY_UNUSED', '2 recorded steps were never replayed')
    })
    await expect(expect(run).toReplayExactly()).rejects.toThrow(
      /the replay failed:\n.*2 recorded steps were never replayed/,
    )
  })

  test('a run without a replayer fails in both forms with a clear message', async () => {
    const plain = refundRun()
    await expect(expect(plain).toReplayExactly()).rejects.toThrow(
      /only runs produced by agentCase\(\) or the agent fixture can be replayed/,
    )
    await expect(expect(plain).not.toReplayExactly()).rejects.toThrow(/carries no replayer/)
  })
})
