import { isMcpHttpStep } from '../../../case/mcp-steps.ts'
import type { Severity } from '../../../case/schema/step.ts'
import type { ResolvedChecksOptions } from '../options.ts'
import type { Detector, StepContext } from './detector.ts'
import type { FindingSlot } from './finding-log.ts'

/**
 * `budget`: what the run has used so far against the limits that were set. A limit raises a `warn` when
 * the use reaches `warnAt` × the limit, and the same finding turns `error` when the use goes over the
 * limit (`maxSteps: 20` allows 20 steps; the 21st is over). What is counted, as steps arrive:
 *
 * - `steps`: steps of any type but MCP's own messages (`http` steps labelled `mcp:`: the handshake,
 *   `tools/list`), so an agent whose tools are an MCP server's uses the budget of one whose tools are
 *   wrapped; `llmCalls`: LLM steps; `toolCalls`: tool calls, each once (a wrapped or MCP tool step that
 *   answers a model call is not counted again);
 * - `tokens`: `inputTokens + outputTokens` of each LLM response's usage (cached and reasoning tokens are
 *   already inside those two); a response without usage counts 0;
 * - `costUsd`: the sum of `step.cost.usd` where a step has a cost;
 * - `seconds`: from `run.startedAt` to the end (`timing.startedAt + durationMs`) of the latest step.
 *
 * A budget has no text to quote: its findings carry no evidence, and the message gives the numbers.
 */

type Metric = keyof ResolvedChecksOptions['limits']

const LABEL: Record<Metric, string> = {
  steps: 'steps',
  llmCalls: 'LLM calls',
  toolCalls: 'tool calls',
  tokens: 'tokens',
  costUsd: 'cost',
  seconds: 'time',
}

interface Gauge {
  value: number
  /** 0 below the warning line, 1 warned, 2 over the limit. */
  level: number
  slot?: FindingSlot
}

/**
 * @example
 * const detector = budget({ steps: 20, costUsd: 0.1 }, 0.8)
 */
export function budget(limits: ResolvedChecksOptions['limits'], warnAt: number): Detector {
  const gauges = new Map<Metric, Gauge>()
  for (const metric of Object.keys(limits) as Metric[]) gauges.set(metric, { value: 0, level: 0 })
  let runStart: { text: string; ms: number } | undefined

  const add = (metric: Metric, amount: number, ctx: StepContext, step: number, set = false): void => {
    const gauge = gauges.get(metric)
    if (!gauge) return
    gauge.value = set ? Math.max(gauge.value, amount) : gauge.value + amount
    const limit = limits[metric]!
    // A relative tolerance, so that 0.7 × 10 warns at 7 and not at 7.000000000000001.
    const level = gauge.value > limit ? 2 : gauge.value >= warnAt * limit * (1 - 1e-12) ? 1 : 0
    if (level <= gauge.level) return
    gauge.level = level
    const severity: Severity = level === 2 ? 'error' : 'warn'
    const message = describe(metric, gauge.value, limit, level, warnAt)
    if (gauge.slot) {
      ctx.log.addStep(gauge.slot, step)
      ctx.log.escalate(gauge.slot, severity, message)
    } else {
      gauge.slot = ctx.log.open({ kind: 'budget', severity, steps: [step], message, evidence: [] })
    }
  }

  return {
    onStep(ctx: StepContext) {
      const step = ctx.step
      if (!isMcpHttpStep(step)) add('steps', 1, ctx, step.index)
      if (step.type === 'llm') {
        add('llmCalls', 1, ctx, step.index)
        const usage = step.response?.normalized?.usage
        if (usage) add('tokens', usage.inputTokens + usage.outputTokens, ctx, step.index)
        const usd = step.cost?.usd
        if (typeof usd === 'number' && usd > 0) add('costUsd', usd, ctx, step.index)
      }
      if (gauges.has('seconds')) {
        if (runStart?.text !== ctx.run.startedAt)
          runStart = { text: ctx.run.startedAt, ms: Date.parse(ctx.run.startedAt) }
        const end = Date.parse(step.timing.startedAt) + step.timing.durationMs
        const seconds = (end - runStart.ms) / 1000
        if (Number.isFinite(seconds)) add('seconds', seconds, ctx, step.index, true)
      }
    },
    onToolCall(call, ctx) {
      add('toolCalls', 1, ctx, call.step)
    },
  }
}

function describe(metric: Metric, value: number, limit: number, level: number, warnAt: number): string {
  const v = format(metric, value)
  const l = format(metric, limit)
  if (level === 2) return `budget: ${LABEL[metric]} ${v}, over the limit of ${l}`
  return `budget: ${LABEL[metric]} ${v}, ${Math.round(warnAt * 100)}% or more of the limit of ${l}`
}

function format(metric: Metric, n: number): string {
  if (metric === 'costUsd') return `$${n.toFixed(n < 0.01 ? 6 : 4)}`
  if (metric === 'seconds') return `${n.toFixed(2)} s`
  return String(n)
}
