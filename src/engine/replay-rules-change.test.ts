import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import OpenAI from 'openai'
import { afterEach, describe, expect, it } from 'vitest'
import { loadCassette } from '../case/cassette-load.ts'
import { writeCassette } from '../case/cassette-write.ts'
import { createRedactor } from '../redact/create-redactor.ts'
import { startScriptedProvider } from '../testing/start-scripted-provider.ts'
import type { ScriptedProvider } from '../testing/types.ts'
import { runInSession } from './context.ts'
import { replayRun } from './internal/test-record-replay.ts'
import { Session } from './session.ts'
import { wrap } from './wrap.ts'

let provider: ScriptedProvider | undefined
afterEach(async () => {
  await provider?.close()
  provider = undefined
})

// Built at run time: no whole key-shaped literal in the repository.
const KEY = `sk-${'proj'}-Q3v9Tn2WkR7pYx5MbL8dFz4HcJ6sZx81Lm`

describe('a cassette written under weaker redaction rules', () => {
  it('still replays: the recorded request is redacted again under the current rules before matching', async () => {
    provider = await startScriptedProvider({ turns: [{ text: 'noted' }] })
    const openai = wrap(new OpenAI({ baseURL: `${provider.url}/v1`, apiKey: 'test', maxRetries: 0 }))
    const ask = () =>
      openai.chat.completions
        .create({ model: 'gpt-5-mini', messages: [{ role: 'user', content: `my key is ${KEY}` }] })
        .then((r) => r.choices[0]?.message.content)

    // Recorded and written by a redactor that knows no rule: the key reaches the cassette, and its
    // stored request hash is taken over the unredacted prompt (what an older version would have done).
    const weak = createRedactor({ useDefaults: false, useGlobalRules: false })
    const session = new Session({ mode: 'record', name: 'weak', redactor: weak })
    await runInSession(session, ask)
    const run = await session.finish({ output: null })
    const dir = mkdtempSync(join(tmpdir(), 'crashlab-rules-'))
    try {
      const path = join(dir, 'weak.cassette.json')
      writeCassette(path, run, { redactor: weak, onWarning: () => {} })
      expect(readFileSync(path, 'utf8')).toContain(KEY)
      const loaded = loadCassette(path).run

      // Replayed under today's rules (the default redactor).
      const { output, session: replay } = await replayRun(loaded, ask)
      expect(output).toBe('noted')
      await replay.finish({ output })
      expect(provider.requests).toHaveLength(1)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
