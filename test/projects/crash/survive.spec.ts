import { appendFileSync } from 'node:fs'
import OpenAI from 'openai'
import { afterAll, expect, test } from 'vitest'
import { agentCase } from '../../../plugin/index.ts'
import { startScriptedProvider } from '../../../src/testing/index.ts'
import { policy, refundBot } from './refund-bot.ts'

const provider = await startScriptedProvider({ policy, seed: 1 })
const client = new OpenAI({ apiKey: 'sk-fixture-not-a-key', baseURL: `${provider.url}/v1`, maxRetries: 2 })
const bot = (input: string) => refundBot(client, input)
let requestsBeforeCrash = -1
let requestsAfterCrash = -1

afterAll(async () => {
  await provider.close()
  const log = process.env.FIXTURE_LOG
  if (log)
    appendFileSync(
      log,
      `${JSON.stringify({ file: 'survive', requests: provider.requests.length, requestsBeforeCrash, requestsAfterCrash })}\n`,
    )
})

test(
  'refund survives what it should',
  agentCase(bot, {
    agent: 'refund-bot',
    input: 'Refund my order A17, it arrived broken',
    assert: async (run) => {
      requestsBeforeCrash = provider.requests.length
      // A 429 and a 500 at both model calls: the SDK retries, the retry is served from the recording.
      await expect(run).toSurvive([{ kind: 'rate_limit' }, { kind: 'server_error' }])
      // An HTML page from the tool: the bot reads a field of it and crashes.
      await expect(run).not.toSurvive({ kind: 'tool_html_error' })
      const error = await expect(run)
        .toSurvive([{ kind: 'tool_html_error' }, { kind: 'tool_throw' }, { kind: 'rate_limit' }], {
          steps: [1, 2],
        })
        .then(
          () => undefined,
          (e: Error) => e,
        )
      requestsAfterCrash = provider.requests.length
      if (process.env.FIXTURE_SURVIVE_MESSAGE)
        appendFileSync(process.env.FIXTURE_SURVIVE_MESSAGE, error?.message ?? '')
    },
  }),
)
