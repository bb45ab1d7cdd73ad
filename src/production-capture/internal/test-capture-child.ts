/**
 * The child process of the store tests (`record-store.test.ts`), run directly by Node 22 (type
 * stripping), outside Vitest: a plain Node process that captures runs with `record()` and the real
 * OpenAI SDK through `wrap()`, against the scripted provider the parent started.
 *
 *   node test-capture-child.ts many <providerUrl> <count> <tag>   waits for "go" on stdin, then records <count> runs
 *   node test-capture-child.ts hang <providerUrl> <steps>         journals <steps> model calls, then hangs until killed
 *   node test-capture-child.ts once <providerUrl>                 records one run
 *
 * The store is the default one (`$CRASHLAB_DIR` when the parent sets it, else `.crashlab/` in the
 * current folder). The API key and the input hold SECRET, which must never reach the store. It prints
 * `ready`, `journaled <n>` after each step reached the journal, and `done <n>`. It stops by itself after
 * 30 seconds so that a parent that dies first never leaves it running.
 */
import OpenAI from 'openai'
import { tool } from '../../engine/tool.ts'
import { wrap } from '../../engine/wrap.ts'
import { record } from '../record.ts'

export const SECRET = 'sk-proj-ChildCaptureSecret0123456789abcd'

const [mode, url, arg, tag] = process.argv.slice(2)
if (!url || (mode !== 'many' && mode !== 'hang' && mode !== 'once')) {
  throw new Error(
    'usage: node test-capture-child.ts many <url> <count> <tag> | hang <url> <steps> | once <url>',
  )
}
setTimeout(() => process.exit(3), 30_000).unref()

const openai = wrap(new OpenAI({ baseURL: `${url}/v1`, apiKey: SECRET, maxRetries: 0 }))
const lookup = tool(async (id: string) => ({ id, status: 'shipped', note: `checked with ${SECRET}` }), {
  name: 'get_order',
  sideEffects: false,
})
const say = (line: string) => process.stdout.write(`${line}\n`)

async function ask(input: string): Promise<string> {
  const completion = await openai.chat.completions.create({
    model: 'gpt-5-mini',
    messages: [{ role: 'user', content: input }],
  })
  return completion.choices[0]?.message.content ?? ''
}

async function statusBot(input: string): Promise<string> {
  await lookup('A17')
  return ask(input)
}

const input = `Where is A17? (my key is ${SECRET})`
const hooks = { onStep: (step: { index: number }) => say(`journaled ${step.index + 1}`) }

if (mode === 'many') {
  say('ready')
  await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()))
  const count = Number(arg)
  for (let i = 1; i <= count; i++) {
    const { stored } = await record(`status-${tag}`, statusBot, { input, tags: [`child:${tag}`] })
    if (!stored) throw new Error(`run ${i} was not stored`)
    say(`done ${i}`)
  }
  process.exit(0)
} else if (mode === 'hang') {
  const steps = Number(arg)
  say('ready')
  await record(
    'hangs',
    async (question: string) => {
      for (let i = 0; i < steps; i++) await ask(`${question} #${i}`)
      // Stays mid-run, as a process stuck on a slow call would, until the parent kills it.
      setInterval(() => {}, 1000)
      await new Promise(() => {})
    },
    { input, hooks },
  )
} else {
  const { stored } = await record('next-start', statusBot, { input })
  say(`done ${stored ? 1 : 0}`)
  process.exit(0)
}
