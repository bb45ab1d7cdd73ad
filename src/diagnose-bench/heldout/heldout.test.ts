import { describe, expect, it, vi } from 'vitest'
import { providerFailure } from '../../case/provider-failure.ts'
import type { FailureLabel, Run } from '../../case/schema/run.ts'
import type { Step } from '../../case/schema/step.ts'
import { benchCommand } from '../../cli/commands/bench.ts'
import { runCommand } from '../../cli/internal/command.ts'
import {
  HELDOUT_AGENTS,
  itHelpdeskAgent,
  pharmacyRefillAgent,
  warehouseInventoryAgent,
} from './agents/index.ts'
import { runHeldoutEpisode } from './faults.ts'
import { scoreHeldout } from './score-heldout.ts'
import {
  HELDOUT_FAULT_KINDS,
  type HeldoutAgent,
  type HeldoutEpisode,
  type HeldoutFaultKind,
} from './types.ts'

/** The label each kind is built to carry: the table, not what any diagnoser says. */
const LABEL_OF: Record<HeldoutFaultKind, FailureLabel> = {
  clean: 'NO_FAILURE',
  'dropped-policy': 'TASK_SPEC_VIOLATION',
  'wrong-tool': 'WRONG_TOOL_SELECTION',
  'hallucinated-id': 'BAD_TOOL_ARGUMENTS',
  'schema-argument': 'BAD_TOOL_ARGUMENTS',
  'tool-html-ignored': 'TOOL_ERROR_MISHANDLED',
  'tool-throws-ignored': 'TOOL_ERROR_MISHANDLED',
  'tool-fails-reported': 'EXTERNAL_FAILURE',
  'provider-5xx': 'EXTERNAL_FAILURE',
  loop: 'STEP_REPETITION',
  'length-cutoff': 'TASK_SPEC_VIOLATION',
  'recovered-429': 'NO_FAILURE',
  'recovered-500': 'NO_FAILURE',
  'recovered-tool-error': 'NO_FAILURE',
  'recovered-bad-argument': 'NO_FAILURE',
}

const stepAt = (run: Run, i: number | null): Step => {
  const step = i === null ? undefined : run.steps[i]
  if (!step) throw new Error(`run ${run.id} has no step ${i}`)
  return step
}
const callsOf = (step: Step) => (step.type === 'llm' ? (step.response?.normalized?.toolCalls ?? []) : [])
const textOf = (step: Step) => JSON.stringify(step.type === 'tool' ? (step.result ?? step.error) : step)

/** What the recorded run must show at the culprit step, kind by kind. */
function expectCulprit(agent: HeldoutAgent, e: HeldoutEpisode): void {
  const { run, truth } = e
  expect(truth.label).toBe(LABEL_OF[e.fault])
  if (truth.label === 'NO_FAILURE') {
    expect(truth.failingStep).toBeNull()
    expect(run.outcome).toBe('pass')
    return
  }
  expect(run.outcome).toBe('fail')
  expect(truth.acceptedSteps).toContain(truth.failingStep)
  const step = stepAt(run, truth.failingStep)
  const earlier = run.steps.slice(0, step.index)
  switch (e.fault) {
    case 'dropped-policy':
      expect(callsOf(step).map((c) => c.name)).toEqual([agent.writeTool])
      expect(run.checks.filter((c) => !c.passed).map((c) => c.name)).toEqual([
        expect.not.stringContaining('task-done'),
      ])
      break
    case 'wrong-tool':
      // A read where a write was asked, and no write at all in the run.
      expect(callsOf(step).map((c) => c.name)).toEqual([agent.readTool])
      expect(earlier.some((s) => s.type === 'tool' && s.name === agent.readTool)).toBe(true)
      expect(run.steps.some((s) => s.type === 'tool' && s.name === agent.writeTool)).toBe(false)
      break
    case 'hallucinated-id': {
      const [call] = callsOf(step)
      const id = String((call?.args as Record<string, unknown> | undefined)?.[agent.idKey])
      expect(id).toBe(agent.fabricateId(e.seed))
      // The id is in no earlier message, tool result or the request of the culprit call itself.
      expect(earlier.some((s) => JSON.stringify(s).includes(id))).toBe(false)
      expect(JSON.stringify(step.type === 'llm' ? step.request.normalized : null)).not.toContain(id)
      break
    }
    case 'schema-argument':
      expect(callsOf(step).map((c) => c.name)).toEqual([agent.writeTool])
      expect(stepAt(run, truth.acceptedSteps[1] ?? null).error?.message).toMatch(/invalid arguments/)
      break
    case 'tool-html-ignored':
      expect(step.type === 'tool' && step.name).toBe(agent.readTool)
      expect(textOf(step)).toContain('502 Bad Gateway')
      break
    case 'tool-throws-ignored':
    case 'tool-fails-reported':
      expect(step.type).toBe('tool')
      expect(step.error !== null || textOf(step).includes('502 Bad Gateway')).toBe(true)
      break
    case 'provider-5xx':
      expect(providerFailure(step)?.status).toBeGreaterThanOrEqual(500)
      expect(earlier.some((s) => providerFailure(s) !== null)).toBe(false)
      expect(run.status).toBe('error')
      break
    case 'loop': {
      // The first call that repeats an earlier one: same tool, same arguments.
      const [call] = callsOf(step)
      const before = earlier.filter((s) => s.type === 'llm').flatMap(callsOf)
      expect(
        before.filter((c) => c.name === call?.name && JSON.stringify(c.args) === JSON.stringify(call?.args)),
      ).toHaveLength(1)
      break
    }
    case 'length-cutoff':
      expect(step.type === 'llm' && step.response?.normalized?.finishReason).toBe('length')
      break
  }
}

describe('held-out episodes, recorded over the scripted provider on each wire API', () => {
  const oneAgentPerWire = [pharmacyRefillAgent, itHelpdeskAgent, warehouseInventoryAgent]
  it('speaks three wire APIs across five agents', () => {
    expect(new Set(HELDOUT_AGENTS.map((a) => a.wire))).toEqual(
      new Set(['openai-chat', 'openai-responses', 'anthropic-messages']),
    )
    expect(HELDOUT_AGENTS.length * HELDOUT_FAULT_KINDS.length * 2).toBeGreaterThanOrEqual(150)
  })

  for (const agent of oneAgentPerWire) {
    it(`${agent.name} (${agent.wire}): every fault kind's truth is located at the step the run shows`, async () => {
      for (const fault of HELDOUT_FAULT_KINDS) {
        for (const seed of [1, 2]) {
          const e = await runHeldoutEpisode(agent, fault, seed)
          expect(e.run.steps.find((s) => s.type === 'llm')?.provider).toBe(agent.wire)
          expectCulprit(agent, e)
        }
      }
    }, 60_000)
  }

  it('records the same run for the same seed', async () => {
    const strip = (e: HeldoutEpisode) => ({
      truth: e.truth,
      steps: e.run.steps.map((s) =>
        s.type === 'llm'
          ? { type: s.type, request: s.request.normalized, response: s.response?.normalized ?? null }
          : s.type === 'tool'
            ? { type: s.type, name: s.name, args: s.args, result: s.result ?? null, error: s.error?.message }
            : { type: s.type },
      ),
    })
    for (const agent of [pharmacyRefillAgent, warehouseInventoryAgent]) {
      const a = await runHeldoutEpisode(agent, 'dropped-policy', 5)
      const b = await runHeldoutEpisode(agent, 'dropped-policy', 5)
      expect(strip(b)).toEqual(strip(a))
      expect(a.run.id).not.toBe(b.run.id)
    }
  })
})

describe('the held-out score', () => {
  const truth = (label: FailureLabel, step: number | null) => ({
    label,
    failingStep: step,
    acceptedSteps: step === null ? [] : [step, step + 1],
    how: 'test',
  })
  it('gives label accuracy, recall, exact and action step, and false alarms, each with a Wilson interval', () => {
    const score = scoreHeldout([
      {
        fault: 'clean',
        truth: truth('NO_FAILURE', null),
        diagnosis: { label: 'NO_FAILURE', failingStep: null },
      },
      {
        fault: 'recovered-429',
        truth: truth('NO_FAILURE', null),
        diagnosis: { label: 'EXTERNAL_FAILURE', failingStep: 2 },
      },
      { fault: 'recovered-500', truth: truth('NO_FAILURE', null), diagnosis: null },
      {
        fault: 'loop',
        truth: truth('STEP_REPETITION', 4),
        diagnosis: { label: 'STEP_REPETITION', failingStep: 5 },
      },
      {
        fault: 'wrong-tool',
        truth: truth('WRONG_TOOL_SELECTION', 2),
        diagnosis: { label: 'TASK_SPEC_VIOLATION', failingStep: 2 },
      },
    ])
    expect([score.label.hits, score.label.n]).toEqual([2, 5])
    expect([score.exactStep.hits, score.exactStep.n]).toEqual([1, 2])
    expect([score.actionStep.hits, score.actionStep.n]).toEqual([2, 2])
    expect([score.falseAlarms.clean.hits, score.falseAlarms.clean.n]).toEqual([0, 1])
    expect([score.falseAlarms.recovered.hits, score.falseAlarms.recovered.n]).toEqual([2, 2])
    expect(score.recall.WRONG_TOOL_SELECTION?.hits).toBe(0)
    expect(score.recall.NO_FAILURE?.n).toBe(3)
    // Wilson, not Wald: 0/1 still has an upper bound far above 0, 2/2 a lower bound far below 1.
    expect(score.falseAlarms.clean.upper).toBeGreaterThan(0.7)
    expect(score.falseAlarms.recovered.lower).toBeLessThan(0.4)
    expect(score.label.lower).toBeLessThan(0.4)
    expect(score.label.upper).toBeGreaterThan(0.4)
  })

  it('is what `crashlab bench --set heldout` prints, apart from the tuning sets, with Wilson intervals', async () => {
    const out: string[] = []
    const log = vi.spyOn(console, 'log').mockImplementation((...a) => void out.push(a.join(' ')))
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    try {
      await runCommand(benchCommand, {
        rawArgs: [
          '--set',
          'heldout',
          '--agent',
          'bank-transfer',
          '--fault',
          'clean,recovered-500,loop',
          '--episodes',
          '1',
        ],
      })
    } finally {
      log.mockRestore()
      write.mockRestore()
    }
    const text = out.join('\n')
    const wilson = String.raw`\d+/\d+ +(\d+%|n/a) \[\d+–\d+\]`
    expect(text).toContain(
      'Held-out set (never tuned on): 1 agents × 3 fault kinds × 1 episodes (seed 1) = 3 episodes',
    )
    expect(text).not.toContain('Demo agents')
    for (const measure of [
      'label accuracy',
      'exact culprit step \\(failing runs\\)',
      'false alarms on clean runs',
      'false alarms on recovered runs',
      'recall STEP_REPETITION',
    ]) {
      expect(text).toMatch(new RegExp(`${measure} +${wilson}`))
    }
    expect(text).toMatch(/false alarms on clean runs +0\/1/)
  }, 60_000)

  it('rejects a set that does not exist', async () => {
    const err = vi.spyOn(console, 'error').mockImplementation(() => {})
    try {
      await runCommand(benchCommand, { rawArgs: ['--set', 'holdout'] })
      expect(process.exitCode).not.toBe(0)
      expect(err.mock.calls.flat().join(' ')).toMatch(/--set "holdout" is not one of tuning, heldout, all/)
    } finally {
      err.mockRestore()
      process.exitCode = undefined
    }
  })
})
