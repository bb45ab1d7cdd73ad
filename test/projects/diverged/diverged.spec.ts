import { appendFileSync } from 'node:fs'
import OpenAI from 'openai'
import { afterAll, expect, test } from 'vitest'
import { agentCase } from '../../../plugin/index.ts'
import { tool } from '../../../src/index.ts'
import { startScriptedProvider } from '../../../src/testing/index.ts'

// A long agent run whose fourth prompt the parent test changes (FIXTURE_LATE_PROMPT), and a short one it
// never changes. The provider answers from the request, so a changed prompt gets a changed answer.
const provider = await startScriptedProvider({
  policy: (request) => {
    const part = request.messages.at(-1)?.parts[0]
    return { text: `ok: ${part?.type === 'text' ? part.text : '?'}` }
  },
})
const client = new OpenAI({ apiKey: 'sk-fixture-not-a-key', baseURL: `${provider.url}/v1`, maxRetries: 0 })
let refunds = 0
const issueRefund = tool(
  async (order: string) => {
    refunds++
    return { refund: `rf_${refunds}`, order }
  },
  { name: 'issue_refund', sideEffects: true },
)

async function chat(prompts: readonly string[]): Promise<string> {
  const messages: OpenAI.ChatCompletionMessageParam[] = []
  let answer = ''
  for (const [i, prompt] of prompts.entries()) {
    messages.push({ role: 'user', content: prompt })
    const completion = await client.chat.completions.create({ model: 'gpt-5-mini', messages })
    answer = completion.choices[0]?.message.content ?? ''
    messages.push({ role: 'assistant', content: answer })
    if (i === 1) await issueRefund('A17')
  }
  return answer
}

afterAll(async () => {
  await provider.close()
  const log = process.env.FIXTURE_LOG
  if (log) appendFileSync(log, `${JSON.stringify({ requests: provider.requests.length, refunds })}\n`)
})

const late = process.env.FIXTURE_LATE_PROMPT ?? 'Thanks. Anything else?'

test(
  'long run',
  agentCase(() => chat(['Where is A17?', 'Refund it', 'Is it done?', late, 'Bye']), {
    agent: 'support-bot',
    input: 'Where is A17?',
    assert: (run) => expect(run.toolCalls('issue_refund')).toHaveLength(1),
  }),
)

test('short run', async () => {
  expect(await chat(['Hello'])).toBe('ok: Hello')
})
