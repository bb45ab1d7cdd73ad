import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A plain HTTP server that counts the TCP connections it accepts: what a test counts as "sent", at the
 * socket, whatever client sent it. It closes each connection after its answer, so that every request
 * opens a connection of its own and is counted. Bound on 127.0.0.2 with that address listed in
 * `CRASHLAB_REMOTE_ADDRESSES`, it stands for a host off the machine, and nothing leaves the machine.
 */
export interface CountingServer {
  url: string
  host: string
  port: number
  /** Connections accepted so far. */
  connections: () => number
  /** Paths requested so far, in order. */
  paths: () => string[]
  close: () => Promise<void>
}

/**
 * Starts one on `host` (default 127.0.0.1), on a free port.
 *
 * @example
 * const remote = await startCountingServer('127.0.0.2')
 */
export async function startCountingServer(host = '127.0.0.1'): Promise<CountingServer> {
  let connections = 0
  const paths: string[] = []
  const server: Server = createServer((req, res) => {
    paths.push(req.url ?? '')
    res.setHeader('connection', 'close')
    res.end('{"ok":true}')
  })
  server.on('connection', () => connections++)
  await new Promise<void>((r) => server.listen(0, host, r))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://${host}:${port}`,
    host,
    port,
    connections: () => connections,
    paths: () => [...paths],
    close: () =>
      new Promise((r) => {
        server.closeAllConnections()
        server.close(() => r())
      }),
  }
}
