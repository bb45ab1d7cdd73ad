import { isIPv4 } from 'node:net'

/** Ollama's default port: a model server on it runs on the user's own machine or network. */
const OLLAMA_PORT = '11434'

/**
 * True when a URL points at a model served locally, which costs nothing per token: `localhost` (and
 * `*.localhost`), the loopback addresses (`127.0.0.0/8`, `::1`), `0.0.0.0`, an mDNS `*.local` host,
 * or Ollama's port 11434 on any host. crashlab's scripted provider listens on loopback, so its steps
 * are local too.
 *
 * @example
 * isLocalEndpoint('http://localhost:11434/v1/chat/completions') // true
 * isLocalEndpoint('https://api.openai.com/v1/chat/completions') // false
 */
export function isLocalEndpoint(url: string): boolean {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return false
  }
  if (parsed.port === OLLAMA_PORT) return true
  const host = parsed.hostname.toLowerCase().replace(/\.$/, '')
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local')) return true
  if (host === '0.0.0.0' || host === '[::1]' || host === '[::]') return true
  if (isIPv4(host)) return host.startsWith('127.')
  // The URL parser writes ::ffff:127.0.0.1 as [::ffff:7f00:1]: an IPv4 loopback address in IPv6 form.
  return /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(host)
}
