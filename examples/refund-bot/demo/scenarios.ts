import type { NormalizedRequest } from '../../../src/case/schema/normalized.ts'
import type { ChecksOptions } from '../../../src/index.ts'
import type { PolicyContext, ScriptedTurn } from '../../../src/testing/index.ts'
import { refundModel } from '../scripted-model.ts'

/** A scripted model: what the provider answers to each request. */
export type Policy = (request: NormalizedRequest, ctx: PolicyContext) => ScriptedTurn

/**
 * One demo scenario: the model behind the provider, the runtime checks of the run, and the line the demo
 * prints about what the run shows.
 */
export interface Scenario {
  name: string
  policy: Policy
  checks?: ChecksOptions
  /** How many times the agent's own retry loop tries again after an error. */
  retries: number
  shows: string
}

const HTML_502: ScriptedTurn = { fault: { type: 'server_error', status: 502 } }

/** Answers the first `n` calls with the gateway's HTML 502 page, then hands over to `policy`. */
function failingFirst(n: number, policy: Policy): Policy {
  return (request, ctx) => (ctx.index < n ? HTML_502 : policy(request, ctx))
}

/** The model sends the refund amount as a string, against the tool's schema (`amount: number`). */
function stringAmount(): Policy {
  const model = refundModel()
  return (request, ctx) => {
    const turn = model(request, ctx)
    if (!('toolCalls' in turn) || !turn.toolCalls) return turn
    return {
      ...turn,
      toolCalls: turn.toolCalls.map((c) => {
        if (
          c.name !== 'issue_refund' ||
          typeof c.args !== 'object' ||
          c.args === null ||
          Array.isArray(c.args)
        )
          return c
        return { ...c, args: { ...c.args, amount: String(c.args.amount) } }
      }),
    }
  }
}

/**
 * The five runs of `npm run demo`. Faults by environment apply to the clean run: `FAULT_HTML_502=1`
 * puts a gateway's HTML 502 page before its first answer, `FAULT_RATE_LIMIT=1` a 429.
 */
export function scenarios(env: NodeJS.ProcessEnv = process.env): Scenario[] {
  let clean: Policy = refundModel()
  if (env.FAULT_HTML_502 === '1') clean = failingFirst(1, clean)
  if (env.FAULT_RATE_LIMIT === '1') {
    const next = clean
    clean = (request, ctx) =>
      ctx.index === 0 ? { fault: { type: 'rate_limit', retryAfter: 0 } } : next(request, ctx)
  }
  return [
    {
      name: 'clean-refund',
      policy: clean,
      retries: 2,
      shows:
        'a clean refund: get_order, then issue_refund for the order total; the oracle passes, no finding',
    },
    {
      name: 'policy-violation',
      policy: refundModel({ violationRate: 1 }),
      retries: 2,
      shows: 'the model refunds ten times the total: the run ends fine, but the oracle fails it',
    },
    {
      name: 'html-502-retry-loop',
      policy: failingFirst(3, refundModel()),
      retries: 5,
      shows: "a gateway's HTML 502 page three times, retried at once: the checks flag the repeated request",
    },
    {
      name: 'circuit-breaker',
      policy: () => HTML_502,
      checks: { circuitBreaker: true },
      retries: 20,
      shows:
        'the gateway never recovers: the circuit breaker stops the retry loop at the fifth identical call',
    },
    {
      name: 'bad-tool-argument',
      policy: stringAmount(),
      retries: 0,
      shows: 'the model sends the amount as a string: bad_tool_args, checked against the tool schema',
    },
  ]
}
