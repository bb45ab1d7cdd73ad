import OpenAI from 'openai'
import {
  applyOracles,
  loadCassette,
  type Run,
  runInSession,
  Session,
  wrap,
  writeCassette,
} from '../../src/index.ts'
import { runRefundBot } from './agent.ts'
import { createShop } from './shop.ts'

export interface RecordedRefund {
  run: Run
  answer: string | null
  refunds: ReturnType<typeof createShop>['refunds']
}

/**
 * Runs the refund bot once under a crashlab Session: `record` against a provider (the scripted one in
 * tests), or `replay` from a cassette with no provider at all. The client is wrapped, so its calls go
 * through the Session; the run is graded by the `refund-bot` oracles. Until the Vitest plugin lands,
 * this is what `agentCase()` will do for a test.
 */
export async function runUnderCrashlab(
  input: string,
  options: { mode: 'record'; baseURL: string } | { mode: 'replay'; cassette: string },
): Promise<RecordedRefund> {
  const shop = createShop()
  const recorded = options.mode === 'replay' ? loadCassette(options.cassette).run : undefined
  const session = new Session({ mode: options.mode, name: 'refund-bot', input, recorded })
  // In a replay nothing answers on this address: every call must be served from the cassette.
  const baseURL = options.mode === 'record' ? options.baseURL : 'http://127.0.0.1:9/v1'
  const client = wrap(new OpenAI({ apiKey: 'sk-test-not-a-real-key', baseURL, maxRetries: 0 }))
  let answer: string | null = null
  try {
    answer = await runInSession(session, () => runRefundBot(input, { client, shop }))
  } catch (error) {
    // A replay that diverged refused the agent's call: finish() throws the divergence (the cause worth
    // reporting) rather than the SDK's error that followed from it.
    await session.finish({ error })
    throw error
  }
  const finished = await session.finish({ output: answer })
  const { run } = await applyOracles(finished, { agent: 'refund-bot' })
  return { run, answer, refunds: shop.refunds }
}

/** Records one run and writes its cassette (redacted, atomically). */
export async function recordCassette(path: string, input: string, baseURL: string): Promise<Run> {
  const { run } = await runUnderCrashlab(input, { mode: 'record', baseURL })
  return writeCassette(path, run).run
}
