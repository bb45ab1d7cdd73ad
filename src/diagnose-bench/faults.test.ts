import { describe, expect, it } from 'vitest'
import type { Run } from '../case/schema/run.ts'
import type { LlmStep, ToolStep } from '../case/schema/step.ts'
import { BENCH_AGENTS, calendarAssistantAgent, flightRebookerAgent, refundBotAgent } from './agents/index.ts'
import { CLAIMED_SUCCESS, runEpisode } from './faults.ts'

// The faults must really produce the failure they claim, read from the recorded run itself.
const tools = (run: Run) => run.steps.filter((s): s is ToolStep => s.type === 'tool')
const llms = (run: Run) => run.steps.filter((s): s is LlmStep => s.type === 'llm')
const systemOf = (run: Run) =>
  llms(run)[0]
    ?.request.normalized?.system.map((p) => (p.type === 'text' ? p.text : ''))
    .join('') ?? ''

describe.each(BENCH_AGENTS.map((a) => [a.name, a] as const))('%s', (_name, agent) => {
  it('clean: the task is done, every oracle passes', async () => {
    const { run, truth } = await runEpisode(agent, 'clean', 1)
    expect(run.status).toBe('ok')
    expect(run.checks.length).toBeGreaterThan(1)
    expect(run.outcome).toBe('pass')
    expect(truth).toMatchObject({ label: 'NO_FAILURE', failingStep: null })
  })

  it('dropped-policy: the rule is gone from the prompt and the model breaks it', async () => {
    const { run, truth } = await runEpisode(agent, 'dropped-policy', 2)
    expect(systemOf(run)).not.toContain(agent.policyLine)
    expect(run.outcome).toBe('fail')
    expect(truth.label).toBe('TASK_SPEC_VIOLATION')
    const step = run.steps[truth.failingStep!] as LlmStep
    expect(step.type).toBe('llm')
    expect(step.response?.normalized?.toolCalls.map((c) => c.name)).toContain(agent.policyTool)
    // Exactly one oracle, the rule's own, fails: the task itself was done.
    expect(run.checks.filter((c) => !c.passed)).toHaveLength(1)
  })

  it('wrong-tool: the model calls the wrong tool, which runs', async () => {
    const { run, truth } = await runEpisode(agent, 'wrong-tool', 1)
    expect(truth.label).toBe('WRONG_TOOL_SELECTION')
    const ran = run.steps[truth.acceptedSteps[1]!] as ToolStep
    expect(ran).toMatchObject({ type: 'tool', name: agent.wrongTool.chosen })
    expect(tools(run).some((t) => t.name === agent.wrongTool.expected)).toBe(false)
    expect(run.outcome).toBe('fail')
  })

  it('bad-argument: the call breaks the tool schema', async () => {
    const { run, truth } = await runEpisode(agent, 'bad-argument', 1)
    expect(truth.label).toBe('BAD_TOOL_ARGUMENTS')
    const ran = run.steps[truth.acceptedSteps[1]!] as ToolStep
    expect(ran.name).toBe(agent.badArgument.tool)
    const schema = agent.tools.find((t) => t.name === ran.name)!.parameters as {
      required: string[]
      properties: Record<string, { type: string }>
    }
    const args = ran.args as Record<string, unknown>
    const broken =
      schema.required.some((k) => !(k in args)) ||
      Object.entries(args).some(([k, v]) => {
        const type = schema.properties[k]?.type
        return (type === 'number' || type === 'integer') && typeof v !== 'number'
      })
    expect(broken).toBe(true)
    expect(run.outcome).toBe('fail')
  })

  it('html-502 on the provider: the model call gets the gateway page and the agent fails', async () => {
    const { run, truth } = await runEpisode(agent, 'html-502', 3) // 3 % 3 = 0: the provider
    expect(run.status).toBe('error')
    const step = run.steps[truth.failingStep!] as LlmStep
    expect(step.response?.wire.status).toBe(502)
    expect(step.response?.wire.bodyText).toContain('<title>502 Bad Gateway</title>')
    expect(truth.label).toBe('EXTERNAL_FAILURE')
  })

  it('html-502 on a tool: the page is in the tool step; reported, or ignored with a claimed success', async () => {
    const reported = await runEpisode(agent, 'html-502', 1)
    const ignored = await runEpisode(agent, 'html-502', 2)
    for (const { run, truth } of [reported, ignored]) {
      const step = run.steps[truth.failingStep!] as ToolStep
      expect(step).toMatchObject({ type: 'tool', name: agent.gatewayTool })
      expect(JSON.stringify(step.result ?? step.error)).toContain('502 Bad Gateway')
    }
    expect(reported.truth.label).toBe('EXTERNAL_FAILURE')
    expect(ignored.truth.label).toBe('TOOL_ERROR_MISHANDLED')
    const next = ignored.run.steps[ignored.truth.acceptedSteps[1]!] as LlmStep
    expect(next.response?.normalized?.parts).toContainEqual({ type: 'text', text: CLAIMED_SUCCESS })
  })
})

it('the held-out agent is the only one held out, and each agent names three or four tools', () => {
  expect(BENCH_AGENTS.filter((a) => a.scoredApart)).toEqual([calendarAssistantAgent])
  expect([refundBotAgent, flightRebookerAgent].every((a) => !a.scoredApart)).toBe(true)
  for (const a of BENCH_AGENTS) {
    expect(a.tools.length).toBeGreaterThanOrEqual(3)
    expect(a.tools.length).toBeLessThanOrEqual(4)
    expect(a.systemPrompt).toContain(a.policyLine)
  }
})

it('the same seed gives the same episode', async () => {
  const a = await runEpisode(flightRebookerAgent, 'dropped-policy', 7)
  const b = await runEpisode(flightRebookerAgent, 'dropped-policy', 7)
  const shape = (r: Run) => r.steps.map((s) => (s.type === 'tool' ? [s.name, s.args] : s.type))
  expect(shape(a.run)).toEqual(shape(b.run))
  expect(a.truth).toEqual(b.truth)
})
