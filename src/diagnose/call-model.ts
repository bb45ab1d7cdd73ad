import { runInSession } from '../engine/context.ts'
import { Session } from '../engine/session.ts'
import { sessionFetch } from '../engine/session-fetch.ts'
import { CrashlabError, type ErrorCode } from '../errors.ts'
import type { RunStore } from '../store/types.ts'

/**
 * Where a helper model (the diagnoser, the fixer) is called.
 *
 * @example
 * const endpoint: ModelEndpoint = { api: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', apiKey: undefined, model: 'llama3.1' }
 */
export interface ModelEndpoint {
  api: 'openai' | 'anthropic'
  baseUrl: string
  apiKey: string | undefined
  model: string
}

/**
 * One recorded call of a helper model: what it is asked, where it is recorded, how its failure is named.
 *
 * @example
 * const call: HelperCall = { endpoint, system, user, name: 'crashlab-fixer', input: { fixes: run.id }, tags: ['fixer'], errorCode: 'E_FIX_CALL', who: 'fixer' }
 */
export interface HelperCall {
  endpoint: ModelEndpoint
  system: string
  user: string
  /** The name of the recorded run (`crashlab-diagnoser`). */
  name: string
  /** The input of the recorded run. */
  input: Record<string, string>
  /** Where the call is recorded, as a run of its own. */
  recordTo?: RunStore | undefined
  tags: string[]
  /** The code of a failed call (`E_DIAGNOSE_CALL`). */
  errorCode: ErrorCode
  /** Who is called, in error messages (`diagnoser`). */
  who: string
  /** Anthropic's `max_tokens`. Default 1024. */
  maxTokens?: number
}

/**
 * The endpoint's base URL without trailing slashes, and its API (Anthropic when the host says so).
 *
 * @example
 * resolveEndpoint('claude-haiku-4-5', 'https://api.anthropic.com/', key, undefined).api // 'anthropic'
 */
export function resolveEndpoint(
  model: string,
  baseUrl: string,
  apiKey: string | undefined,
  api: 'openai' | 'anthropic' | undefined,
): ModelEndpoint {
  const url = baseUrl.replace(/\/+$/, '')
  return {
    model,
    baseUrl: url,
    apiKey,
    api: api ?? (/anthropic/i.test(new URL(url).host) ? 'anthropic' : 'openai'),
  }
}

/**
 * Calls a helper model once through a Session of its own: recorded (redacted) into `recordTo`, never
 * part of the run it is about. Returns the answer's text; a failure is a CrashlabError with `errorCode`.
 *
 * @example
 * const text = await callDiagnoserModel({ endpoint, system, user, name: 'crashlab-diagnoser', input: { diagnoses: run.id }, tags: ['diagnoser'], errorCode: 'E_DIAGNOSE_CALL', who: 'diagnoser' })
 */
export async function callDiagnoserModel(c: HelperCall): Promise<string> {
  const { endpoint } = c
  const session = new Session({ mode: 'record', name: c.name, input: c.input })
  const fetchInSession = sessionFetch(globalThis.fetch)
  try {
    const text = await runInSession(session, () => callModel(fetchInSession, c))
    const recorded = await session.finish({ output: text })
    c.recordTo?.save(recorded, { tags: c.tags })
    return text
  } catch (error) {
    if (!session.isFinished) await session.finish({ error }).catch(() => undefined)
    throw error instanceof CrashlabError
      ? error
      : new CrashlabError(
          c.errorCode,
          `the ${c.who} call to ${endpoint.baseUrl} (${endpoint.model}) failed: ${(error as Error).message}`,
          { cause: error },
        )
  }
}

async function callModel(fetcher: typeof fetch, c: HelperCall): Promise<string> {
  const { api, baseUrl, apiKey, model } = c.endpoint
  const anthropic = api === 'anthropic'
  const url = anthropic ? `${baseUrl.replace(/\/v1$/, '')}/v1/messages` : `${baseUrl}/chat/completions`
  // `connection: close`: the call leaves no pooled socket behind. An interceptor started after it (a
  // fork of `crashlab fix --try`, a replay) would not see a request that reused such a socket.
  const headers: Record<string, string> = { 'content-type': 'application/json', connection: 'close' }
  if (anthropic) {
    headers['anthropic-version'] = '2023-06-01'
    if (apiKey) headers['x-api-key'] = apiKey
  } else if (apiKey) headers.authorization = `Bearer ${apiKey}`
  const body = anthropic
    ? {
        model,
        max_tokens: c.maxTokens ?? 1024,
        system: c.system,
        messages: [{ role: 'user', content: c.user }],
      }
    : {
        model,
        messages: [
          { role: 'system', content: c.system },
          { role: 'user', content: c.user },
        ],
      }
  const response = await fetcher(url, { method: 'POST', headers, body: JSON.stringify(body) })
  const json = (await response.json().catch(() => null)) as Record<string, unknown> | null
  if (!response.ok) {
    const detail = json ? JSON.stringify(json).slice(0, 300) : response.statusText
    throw new CrashlabError(
      c.errorCode,
      `the ${c.who} endpoint ${url} answered ${response.status}: ${detail}`,
    )
  }
  if (anthropic) {
    const content = (json?.content as Array<{ type: string; text?: string }> | undefined) ?? []
    return content.map((b) => (b.type === 'text' ? (b.text ?? '') : '')).join('')
  }
  const choices = (json?.choices as Array<{ message?: { content?: string | null } }> | undefined) ?? []
  return choices[0]?.message?.content ?? ''
}
