import { captureCase } from '../agentcase-capture/explicit-capture.ts'
import type { CaptureCaseOptions, ExplicitCapture } from '../agentcase-capture/types.ts'
import { type Capture, type StartCaptureOptions, startCapture } from './start-capture.ts'

/**
 * Captures an agent run outside a test runner, in one of two ways:
 * - `capture({ name })`: a run in a long-lived process (a server, a worker), recorded through `wrap(client)`
 *   (or `installInterceptor()`) and `tool()` into the local run store, each step journaled as it happens;
 *   resolves to a `Capture` whose `run(fn)` runs the agent and whose `close()` stores the run.
 * - `capture({ output: 'failure.agentcase' })`: by hand, for code that reaches a model without HTTP: a
 *   session with `message`, `modelRequest`, `modelResponse`, `toolCall`, `toolResult`, `retry`,
 *   `exception` and `logicalFailure`, written as a validated AgentCase when it closes.
 *
 * @example
 * import { capture, wrap } from 'crashlab'
 * const openai = wrap(new OpenAI())
 * const c = await capture({ name: 'refund-bot', input: request.body })
 * const answer = await c.run(() => refundBot(openai, request.body))
 * await c.close({ output: answer })
 *
 * const session = capture({ output: 'failure.agentcase' })
 * const request = session.modelRequest({ provider: 'local', model: 'tiny', input: { prompt } })
 * session.modelResponse({ parentEventId: request, output: { text: myModel(prompt) } })
 * session.close()
 */
export function capture(options: CaptureCaseOptions): ExplicitCapture
export function capture(options: StartCaptureOptions): Promise<Capture>
export function capture(
  options: CaptureCaseOptions | StartCaptureOptions,
): ExplicitCapture | Promise<Capture> {
  if (options && typeof options === 'object' && 'output' in options && typeof options.output === 'string') {
    return captureCase(options as CaptureCaseOptions)
  }
  return startCapture(options as StartCaptureOptions)
}
