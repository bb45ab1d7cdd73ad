import type { Detector, StepContext } from './detector.ts'
import { tailQuote } from './quote.ts'

/**
 * `length_cutoff`: an LLM response that stopped because it hit the token limit (`finishReason:
 * 'length'`; the adapters map OpenAI's `length`, Anthropic's `max_tokens`, Gemini's `MAX_TOKENS` and the
 * Responses API's `max_output_tokens` to it). `warn` for text, which the agent may pass on half-written;
 * `error` when the response was asking for tool calls, whose arguments were most likely cut too.
 * Evidence: the finish reason and the end of the text where it was cut.
 *
 * @example
 * const detector = lengthCutoff()
 */
export function lengthCutoff(): Detector {
  return {
    onStep(ctx: StepContext) {
      const step = ctx.step
      if (step.type !== 'llm') return
      const response = step.response?.normalized
      if (response?.finishReason !== 'length') return
      let text = ''
      for (const part of response.parts)
        if (part.type === 'text') text = part.text.length > 0 ? part.text : text
      const calls = response.toolCalls.length > 0
      const max = step.request.normalized?.params.maxTokens
      const limit = max === undefined ? 'the token limit' : `the token limit (maxTokens ${max})`
      const evidence = ['length']
      const end = tailQuote(text.trimEnd(), 120)
      if (end.length > 0) evidence.push(end)
      ctx.log.open({
        kind: 'length_cutoff',
        severity: calls ? 'error' : 'warn',
        steps: [step.index],
        message: calls
          ? `the response was cut by ${limit} while it was asking for tool calls`
          : `the response was cut by ${limit}`,
        evidence,
      })
    },
  }
}
