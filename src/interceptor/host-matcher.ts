/** The hosts crashlab records and replays when none are given: the three model APIs it has adapters for. */
export const DEFAULT_HOSTS: readonly string[] = [
  'api.openai.com',
  'api.anthropic.com',
  'generativelanguage.googleapis.com',
]

/** Decides whether a request URL belongs to an intercepted host. */
export type HostMatcher = (url: URL) => boolean

/**
 * Builds the matcher from `InterceptorOptions.hosts`: a bare host name matches it on any port (a
 * gateway on :8443 is still that gateway), `host:port` and base URLs match that exact host and port.
 * Entries are compared lower-cased, as URL parsing lower-cases request hosts.
 */
export function hostMatcher(hosts: readonly string[] = DEFAULT_HOSTS): HostMatcher {
  const names = new Set<string>()
  const exact = new Set<string>()
  for (const entry of hosts) {
    const parsed = parseHost(entry)
    if (parsed.port) exact.add(`${parsed.hostname}:${parsed.port}`)
    else names.add(parsed.hostname)
  }
  return (url) => names.has(url.hostname) || exact.has(`${url.hostname}:${url.port || defaultPort(url)}`)
}

/** The canonical text of a hosts list, to tell whether two `startInterceptor` calls ask for the same thing. */
export function hostsKey(hosts: readonly string[] = DEFAULT_HOSTS): string {
  return hosts
    .map((h) => {
      const p = parseHost(h)
      return p.port ? `${p.hostname}:${p.port}` : p.hostname
    })
    .sort()
    .join(',')
}

function parseHost(entry: string): { hostname: string; port: string } {
  const text = entry.trim().toLowerCase()
  if (text.includes('://')) {
    const url = new URL(text)
    return { hostname: url.hostname, port: url.port || defaultPort(url) }
  }
  // A scheme of no default port, so that `host:80` keeps its port; `new URL` still parses IPv6 literals.
  const url = new URL(`crashlab://${text}`)
  return { hostname: url.hostname, port: url.port }
}

function defaultPort(url: URL): string {
  if (url.protocol === 'https:' || url.protocol === 'wss:') return '443'
  if (url.protocol === 'http:' || url.protocol === 'ws:') return '80'
  return ''
}
