import { afterAll, beforeAll } from 'vitest'
import type { NormalizedResponse } from '../../src/case/schema/normalized.ts'
import {
  type ReceivedRequest,
  type ScriptedAnswer,
  type ScriptedProvider,
  type ScriptedTurn,
  startScriptedProvider,
} from '../../src/testing/index.ts'

/** One scripted provider for a whole test file, with the turns set test by test. */
export interface ScriptedHarness {
  /** The running provider (only inside a test or hook). */
  readonly provider: ScriptedProvider
  /** The origin, `http://127.0.0.1:PORT`. */
  readonly url: string
  /** Replaces the turns still queued, and starts a new window of `calls()`. */
  script(...turns: ScriptedTurn[]): void
  /** The model calls received since the last `script()`, in arrival order. */
  calls(): ReceivedRequest[]
}

/**
 * Starts a scripted provider in `beforeAll` and closes it in `afterAll`. The provider answers from a
 * queue that each test fills with `script()`: a call with no turn left gets the provider's script
 * error (a 500 with `x-should-retry: false`), so a test that calls more than it scripted fails loudly.
 *
 * @example
 * const server = useScriptedProvider()
 * it('answers', async () => {
 *   server.script({ text: 'hi' })
 *   // ... call the SDK at server.url ...
 *   expect(server.calls()).toHaveLength(1)
 * })
 */
export function useScriptedProvider(): ScriptedHarness {
  const queue: ScriptedTurn[] = []
  let provider: ScriptedProvider | undefined
  let from = 0
  beforeAll(async () => {
    provider = await startScriptedProvider({
      policy: () => {
        const turn = queue.shift()
        if (!turn) throw new Error('the test scripted no more turns')
        return turn
      },
    })
  })
  afterAll(async () => {
    await provider?.close()
  })
  const running = (): ScriptedProvider => {
    if (!provider) throw new Error('the scripted provider is not running (use it inside a test)')
    return provider
  }
  return {
    get provider() {
      return running()
    },
    get url() {
      return running().url
    },
    script(...turns) {
      queue.length = 0
      queue.push(...turns)
      from = running().requests.length
    },
    calls() {
      return running()
        .requests.slice(from)
        .filter((r) => r.index !== null)
    },
  }
}

/** What a one-off call returned, and what the provider says it served (`answer.response` for a reply). */
export interface OnceResult<T> {
  value: T
  answer: ScriptedAnswer | null
}

/**
 * Runs `call` against a fresh provider that serves `turn` once, then closes it: twin calls (plain and
 * streamed) made this way are both model call 0, so their ids and request ids are the same.
 *
 * @example
 * const plain = await once({ text: 'hi' }, (url) => ask(url, false))
 */
export async function once<T>(turn: ScriptedTurn, call: (url: string) => Promise<T>): Promise<OnceResult<T>> {
  const provider = await startScriptedProvider({ turns: [turn] })
  try {
    const value = await call(provider.url)
    const answers = provider.requests.filter((r) => r.index !== null).map((r) => r.answer)
    if (answers.length !== 1) throw new Error(`expected one model call, got ${answers.length}`)
    return { value, answer: answers[0] ?? null }
  } finally {
    await provider.close()
  }
}

/** The response the provider meant the client to read, from a reply's answer; throws for anything else. */
export function servedResponse(answer: ScriptedAnswer | null): NormalizedResponse {
  if (answer?.kind !== 'reply') throw new Error(`expected a reply, got ${JSON.stringify(answer)}`)
  return answer.response
}
