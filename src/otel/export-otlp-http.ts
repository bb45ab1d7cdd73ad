import type { Run } from '../case/schema/run.ts'
import { CrashlabError } from '../errors.ts'
import { type RunsToOtlpOptions, runsToOtlp } from './run-to-otlp.ts'

export interface ExportOtlpHttpOptions extends RunsToOtlpOptions {
  /** The OTLP/HTTP receiver: `http://host:4318` (`/v1/traces` is added), or the full `…/v1/traces` URL. */
  endpoint: string
  /** Headers sent with the request (an API key the receiver asks for, say). */
  headers?: Record<string, string>
  /** How long to wait for the answer. Default: 30 000 ms. */
  timeoutMs?: number
}

/**
 * Sends runs to an OTLP/HTTP receiver (an OpenTelemetry Collector, a tracing backend, `crashlab receive`)
 * as OTLP JSON: one POST to `<endpoint>/v1/traces` with the traces of `runsToOtlp`, redacted, content only
 * with `includeContent`. Returns the URL posted to. A receiver that cannot be reached, or answers other than 2xx, is an
 * `E_OTLP_EXPORT` error naming the endpoint and the status.
 *
 * @example
 * await exportRunsOtlpHttp([run], { endpoint: 'http://localhost:4318', includeContent: true })
 */
export async function exportRunsOtlpHttp(
  runs: readonly Run[],
  options: ExportOtlpHttpOptions,
): Promise<{ url: string }> {
  const url = tracesUrl(options.endpoint)
  const body = JSON.stringify(runsToOtlp(runs, options))
  let response: Response
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { ...options.headers, 'content-type': 'application/json' },
      body,
      signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
    })
  } catch (cause) {
    // fetch says `fetch failed`; why is in its cause (ECONNREFUSED, a bad port, ...).
    const inner = (cause as { cause?: { code?: string; message?: string } }).cause
    const why =
      (cause as Error).name === 'TimeoutError'
        ? `no answer in ${options.timeoutMs ?? 30_000} ms`
        : (inner?.code ?? inner?.message ?? (cause as Error).message)
    throw new CrashlabError(
      'E_OTLP_EXPORT',
      `cannot reach the OTLP endpoint ${url} (${why}). Check that the receiver listens there ` +
        '(an OpenTelemetry Collector with an otlphttp receiver, or `crashlab receive --otlp <port>`).',
      { subject: url, cause },
    )
  }
  if (!response.ok) {
    const text = (await response.text().catch(() => '')).trim().slice(0, 300)
    throw new CrashlabError(
      'E_OTLP_EXPORT',
      `the OTLP endpoint ${url} answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''}` +
        `${text ? `: ${text}` : ''}. Check the endpoint and its headers (--header).`,
      { subject: url },
    )
  }
  // The body (a partial success, usually empty) is read so that the connection is released.
  await response.arrayBuffer().catch(() => undefined)
  return { url }
}

/** The traces URL of an endpoint: `/v1/traces` added unless it is there. */
function tracesUrl(endpoint: string): string {
  let url: URL
  try {
    url = new URL(endpoint)
  } catch {
    url = new URL('http://invalid')
  }
  if (!/^https?:$/.test(url.protocol) || url.hostname === 'invalid') {
    throw new CrashlabError(
      'E_OTLP_EXPORT',
      `${JSON.stringify(endpoint)} is not an OTLP/HTTP endpoint: pass a URL such as http://localhost:4318.`,
      { subject: endpoint },
    )
  }
  const path = url.pathname.replace(/\/+$/, '')
  if (!path.endsWith('/v1/traces')) url.pathname = `${path}/v1/traces`
  return url.toString()
}
