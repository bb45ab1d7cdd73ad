import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { recordRun } from '../../engine/internal/test-record-replay.ts'
import { isCrashlabError } from '../../errors.ts'
import { hostMatcher } from '../host-matcher.ts'
import { startInterceptor } from '../start-interceptor.ts'
import type { Interceptor } from '../types.ts'
import { type CountingServer, startCountingServer } from './counting-server.ts'
import { hostEntry } from './host-entry.ts'

// Advice that names a host names one that works on the next run: a loopback server's port is picked at
// each start, so the entry suggested for it is its host name, which `hosts` matches on any port.

describe('hostEntry', () => {
  it('names a loopback host without its port, and the entry matches the same host on another port', () => {
    for (const [url, entry] of [
      ['http://127.0.0.1:37249/v1/chat/completions', '127.0.0.1'],
      ['http://localhost:8080/', 'localhost'],
      ['http://[::1]:4000/v1/messages', '[::1]'],
    ] as const) {
      expect(hostEntry(new URL(url))).toBe(entry)
      const next = new URL(url)
      next.port = '41111'
      expect(hostMatcher([entry])(next)).toBe(true)
    }
  })

  it('keeps the port of another host, and its default port is left out', () => {
    expect(hostEntry(new URL('https://gw.example.com:8443/v1'))).toBe('gw.example.com:8443')
    expect(hostEntry(new URL('https://gw.example.com/v1'))).toBe('gw.example.com')
    expect(hostMatcher(['gw.example.com:8443'])(new URL('https://gw.example.com:8443/v1/x'))).toBe(true)
  })
})

describe("E_UNHANDLED_HOST with otherHosts: 'error'", () => {
  let server: CountingServer
  let interceptor: Interceptor
  beforeAll(async () => {
    server = await startCountingServer()
    interceptor = startInterceptor({ hosts: ['api.openai.com'], otherHosts: 'error' })
  })
  afterAll(async () => {
    await interceptor.close()
    await server.close()
  })

  it('suggests `127.0.0.1` for a loopback server, not its port of this run', async () => {
    const rec = await recordRun(() => fetch(`${server.url}/health`).then((r) => r.status), {}).catch(
      (error: unknown) => error,
    )
    expect(isCrashlabError(rec, 'E_UNHANDLED_HOST')).toBe(true)
    const message = (rec as Error).message
    expect(message).toContain(`${server.url}/health`)
    expect(message).toContain("add `127.0.0.1` to the interceptor's `hosts`")
    expect(message).not.toContain(`\`127.0.0.1:${server.port}\``)
  })
})
