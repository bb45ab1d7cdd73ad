import type { CrashlabError } from '../errors.ts'

/** The header that says which crashlab error a refusal response stands for. */
export const REFUSAL_HEADER = 'x-crashlab-error'

/**
 * The answer to a call crashlab refuses inside a Session whose run it ends (a replay's divergence, a
 * call after a halt, a request the replay rule keeps in): an HTTP 400 with a JSON error body naming the
 * crashlab error, and `x-should-retry: false`. No SDK retries it: the OpenAI and Anthropic SDKs (and
 * the Agents SDK through OpenAI's) obey `x-should-retry`, and like the AI SDK (`APICallError`),
 * LangChain's `AsyncCaller` and `@google/genai` they never retry a 400. A network error would be
 * retried with backoff, and the test would end as a timeout that hides the cause. The agent sees an
 * API error whose message is crashlab's; the Session keeps the error itself, and `finish()` throws it.
 *
 * The body reads as an error in each API's format: OpenAI's and Gemini's `error.message`, Anthropic's
 * `type: 'error'` with `error.type` and `error.message`; the top-level `message` is what the Anthropic
 * SDK shows when it reads a body.
 *
 * @example
 * session.fail(divergence)
 * return refusalResponse(divergence)
 */
export function refusalResponse(error: CrashlabError): Response {
  const body = {
    type: 'error',
    message: error.message,
    error: { type: 'crashlab_refusal', code: error.code, message: error.message },
  }
  return new Response(JSON.stringify(body), {
    status: 400,
    headers: {
      'content-type': 'application/json',
      'x-should-retry': 'false',
      [REFUSAL_HEADER]: error.code,
    },
  })
}
