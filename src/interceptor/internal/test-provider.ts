import type { NormalizedRequest } from '../../case/schema/normalized.ts'
import { startScriptedProvider } from '../../testing/start-scripted-provider.ts'
import type { ScriptedProvider, ScriptedTurn } from '../../testing/types.ts'

/**
 * A scripted provider whose turns each test sets: the interceptor's hosts are fixed when it starts,
 * so one provider (one port) serves a whole test file.
 */
export interface TestProvider {
  provider: ScriptedProvider
  /** Replaces the turns still to serve, or answers each request from a function of it. */
  script(turns: ScriptedTurn[] | ((request: NormalizedRequest) => ScriptedTurn)): void
  /** Requests received since the last `script()`. */
  received(): number
}

/** Starts the provider on a free port. */
export async function startTestProvider(): Promise<TestProvider> {
  let queue: ScriptedTurn[] = []
  let answer: ((request: NormalizedRequest) => ScriptedTurn) | undefined
  let base = 0
  const provider = await startScriptedProvider({
    policy: (request) => answer?.(request) ?? queue.shift() ?? { text: 'the script ran out' },
  })
  return {
    provider,
    script(turns) {
      answer = typeof turns === 'function' ? turns : undefined
      queue = typeof turns === 'function' ? [] : [...turns]
      base = provider.requests.length
    },
    received: () => provider.requests.length - base,
  }
}
