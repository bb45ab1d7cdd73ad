import type { Params } from '../../case/schema/normalized.ts'
import type { Step } from '../../case/schema/step.ts'

/**
 * For tests of the way out and back in (runsToOtlp, the OTLP/HTTP sender and receiver): what a step
 * says, without its ids, timing and wire fields, which an export is free to change.
 *
 * @example
 * expect(back.run.steps.map(stepContent)).toEqual(run.steps.filter((s) => s.type !== 'http').map(stepContent))
 */
export function stepContent(step: Step): unknown {
  if (step.type === 'llm') {
    const request = step.request.normalized
    return {
      type: step.type,
      request: request && { ...request, params: conventionParams(request.params) },
      response: step.response?.normalized,
      incomplete: step.response?.incomplete,
      error: step.error,
    }
  }
  if (step.type === 'tool') {
    const { name, callId, args, result, error } = step
    return { type: step.type, name, callId, args, result, error }
  }
  return { type: step.type }
}

/** The parameters the GenAI conventions have a key for; tool choice and response format have none. */
function conventionParams(params: Params): Params {
  const { toolChoice: _c, responseFormat: _f, extra, ...rest } = params
  const kept = Object.fromEntries(
    Object.entries(extra ?? {}).filter(([k]) =>
      ['top_k', 'frequency_penalty', 'presence_penalty', 'n'].includes(k),
    ),
  )
  return Object.keys(kept).length > 0 ? { ...rest, extra: kept } : rest
}
