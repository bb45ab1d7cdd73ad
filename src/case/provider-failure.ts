import type { Step } from './schema/step.ts'

/**
 * Whether a step is a model call the provider failed, and how: a 429, a 5xx (a gateway's HTML page
 * included), or no response at all (a reset, a timeout). Null for any other step, a 4xx the request
 * earned (a bad request is the agent's doing), or a call that got its answer. The diagnoser reads such a
 * step as `EXTERNAL_FAILURE`; `verify` counts a fork that failed on one as errored, never as failed.
 *
 * @example
 * providerFailure(run.steps[0]) // { status: 502 }
 */
export function providerFailure(step: Step | undefined): { status: number | null } | null {
  if (step?.type !== 'llm') return null
  const status = step.error?.status ?? step.response?.wire.status
  if (status === undefined) return step.error !== null ? { status: null } : null
  return status === 429 || status >= 500 ? { status } : null
}
