import { appendFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { refundModel } from '../../../examples/refund-bot/scripted-model.ts'
import { type ScriptPolicy, startScriptedProvider } from '../../../src/testing/index.ts'

/**
 * The model server of a spec file: the scripted provider on 127.0.0.1, on a free port, playing `policy`
 * (the refund bot's model by default), or with FIXTURE_PROVIDER=off no server at all (the base URL then
 * names a port nothing listens on).
 */
export async function modelServer(policy: ScriptPolicy = refundModel()): Promise<{
  url: string
  requests: () => number
  close: () => Promise<void>
}> {
  if (process.env.FIXTURE_PROVIDER === 'off') {
    return { url: `http://127.0.0.1:${await closedPort()}`, requests: () => 0, close: async () => {} }
  }
  const provider = await startScriptedProvider({ policy, seed: 1 })
  return { url: provider.url, requests: () => provider.requests.length, close: () => provider.close() }
}

/** Appends one line to the parent test's log. */
export function log(entry: Record<string, unknown>): void {
  const file = process.env.FIXTURE_LOG
  if (file) appendFileSync(file, `${JSON.stringify(entry)}\n`)
}

/** A port on 127.0.0.1 that nothing listens on (it was free a moment ago). */
export function closedPort(): Promise<number> {
  return new Promise((done) => {
    const server = createServer()
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => done(port))
    })
  })
}
