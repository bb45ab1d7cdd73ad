import { isLoopbackHost } from './loopback.ts'

/**
 * The `hosts` / `allowHosts` entry an error message suggests for a request's URL: one that still
 * matches on the next run. A loopback server (a local model server, a test's server) usually listens on
 * a port picked at start, so it is named by its host name alone, which `hostMatcher` matches on any
 * port; another host keeps its port when it has one (`gw.example.com:8443`).
 *
 * @example
 * hostEntry(new URL('http://127.0.0.1:37249/v1/chat/completions')) // '127.0.0.1'
 * hostEntry(new URL('https://gw.example.com:8443/v1'))              // 'gw.example.com:8443'
 */
export function hostEntry(url: URL): string {
  return isLoopbackHost(url.hostname) ? url.hostname : url.host
}
