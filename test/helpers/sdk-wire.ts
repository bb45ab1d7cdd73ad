import type { NormalizedRequest, NormalizedResponse } from '../../src/case/schema/normalized.ts'
import type { WireRequest, WireResponse } from '../../src/case/schema/step.ts'
import { findAdapter } from '../../src/providers/registry.ts'
import { requestHash } from '../../src/providers/request-hash.ts'
import { parseSse } from '../../src/providers/sse.ts'
import type { ProviderAdapter } from '../../src/providers/types.ts'
import type { ReceivedRequest, ScriptedProvider } from '../../src/testing/index.ts'

/**
 * What the SDK contract tests share: a recorded request as the engine would see it on the wire, put
 * through the adapter (not through what the scripted provider already normalized), and the raw bodies
 * the server sent, captured on the client side of the socket.
 */

/** The recorded request as a wire request: the URL the SDK called, its headers, its parsed body. */
export function wireOf(provider: ScriptedProvider, received: ReceivedRequest): WireRequest {
  return {
    method: received.method,
    url: `${provider.url}${received.path}`,
    headers: received.headers,
    body: received.body,
  }
}

/** The adapter that owns the recorded request; throws when none claims it. */
export function adapterOf(provider: ScriptedProvider, received: ReceivedRequest): ProviderAdapter {
  const wire = wireOf(provider, received)
  const adapter = findAdapter({ method: wire.method, url: wire.url })
  if (!adapter) throw new Error(`no adapter claims ${wire.method} ${received.path}`)
  return adapter
}

/** The recorded request, normalized by its adapter. */
export function normalizedOf(provider: ScriptedProvider, received: ReceivedRequest): NormalizedRequest {
  return adapterOf(provider, received).normalizeRequest(wireOf(provider, received))
}

/** The request hash the engine would compute for the recorded request. */
export function hashOf(provider: ScriptedProvider, received: ReceivedRequest): string {
  const wire = wireOf(provider, received)
  return requestHash({
    method: wire.method,
    url: wire.url,
    headers: wire.headers,
    normalized: normalizedOf(provider, received),
  })
}

/** The model calls among the recorded requests (side calls such as a models list left out). */
export function modelCalls(provider: ScriptedProvider): ReceivedRequest[] {
  return provider.requests.filter((r) => r.index !== null)
}

/** The recorded request at `index` among the model calls; throws when there is none. */
export function modelCall(provider: ScriptedProvider, index: number): ReceivedRequest {
  const call = modelCalls(provider)[index]
  if (!call) throw new Error(`no model call #${index}; received ${provider.requests.length} requests`)
  return call
}

/** One response as the client received it, body read to the end (or to where it broke). */
export interface CapturedResponse {
  url: string
  status: number
  headers: Record<string, string>
  /** The whole body as text; rejects when the body broke off. */
  text: Promise<string>
}

/** A `fetch` for an SDK client that hands the SDK the response unchanged and keeps a copy of each body. */
export interface CapturingFetch {
  fetch: typeof globalThis.fetch
  responses: CapturedResponse[]
}

/**
 * A `fetch` that records what the server sent. The copy is a `Response.clone()`, read in the
 * background: the SDK's own reading is untouched.
 *
 * @example
 * const capture = capturingFetch()
 * const client = new OpenAI({ baseURL, apiKey: 'test', fetch: capture.fetch })
 */
export function capturingFetch(): CapturingFetch {
  const responses: CapturedResponse[] = []
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const response = await globalThis.fetch(input, init)
    const text = response.clone().text()
    // A cut body rejects; the test that wants the text awaits it, the others must not see an unhandled rejection.
    text.catch(() => undefined)
    responses.push({
      url: response.url,
      status: response.status,
      headers: Object.fromEntries(response.headers),
      text,
    })
    return response
  }
  return { fetch, responses }
}

/** The captured response as a plain wire response: the body parsed as JSON. */
export async function plainWire(captured: CapturedResponse): Promise<WireResponse> {
  return { status: captured.status, headers: captured.headers, body: JSON.parse(await captured.text) }
}

/** The captured response as a streamed wire response: the body split into its server-sent events. */
export async function streamWire(captured: CapturedResponse): Promise<WireResponse> {
  return {
    status: captured.status,
    headers: captured.headers,
    body: null,
    chunks: parseSse(await captured.text),
  }
}

/** A response read back by the adapter that owns `url`; throws when none does or it reads nothing. */
export function readResponse(url: string, wire: WireResponse): NormalizedResponse {
  const adapter = findAdapter({ method: 'POST', url })
  if (!adapter) throw new Error(`no adapter claims POST ${url}`)
  const response = adapter.normalizeResponse(wire)
  if (!response) throw new Error(`${adapter.id} read no response from status ${wire.status}`)
  return response
}
