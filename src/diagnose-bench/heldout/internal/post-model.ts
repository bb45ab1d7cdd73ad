/**
 * One model call over `fetch` with the retries a careful production client makes: a 429 or a 5xx is
 * sent again (at most `retries` times, after a short wait; the `retry-after` header is honoured up to
 * 50 ms, as the bench has no time to lose), anything else is returned. When the retries run out, it
 * throws with the status and the start of the body: the agent does not survive.
 */
export async function postModel(options: {
  fetch: typeof fetch
  url: string
  headers: Record<string, string>
  body: unknown
  retries?: number
}): Promise<unknown> {
  const retries = options.retries ?? 2
  for (let attempt = 0; ; attempt++) {
    const res = await options.fetch(options.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...options.headers },
      body: JSON.stringify(options.body),
    })
    const text = await res.text()
    if (res.ok) return JSON.parse(text) as unknown
    const transient = res.status === 429 || res.status >= 500
    if (!transient || attempt >= retries) {
      throw new Error(
        `the model provider answered ${res.status} after ${attempt + 1} attempt(s): ${text.slice(0, 120)}`,
      )
    }
    const after = Number(res.headers.get('retry-after') ?? '0')
    await new Promise((resolve) =>
      setTimeout(resolve, Math.min(50, Number.isFinite(after) ? after * 1000 : 0)),
    )
  }
}

/** A tool's result as the model reads it: a string as is, anything else as JSON; a throw as `{ error }`. */
export async function runToolCall(
  run: Record<string, (args: Record<string, unknown>) => unknown>,
  name: string,
  args: Record<string, unknown>,
): Promise<{ content: string; isError: boolean }> {
  try {
    const fn = run[name]
    if (!fn) return { content: JSON.stringify({ error: `unknown tool ${name}` }), isError: true }
    const result = await fn(args)
    return { content: typeof result === 'string' ? result : JSON.stringify(result), isError: false }
  } catch (err) {
    return { content: JSON.stringify({ error: (err as Error).message }), isError: true }
  }
}

/** The arguments a model sent as a JSON string, parsed; a string that is not a JSON object gives `{}`. */
export function parseArgs(json: string): Record<string, unknown> {
  try {
    const v = JSON.parse(json) as unknown
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}
