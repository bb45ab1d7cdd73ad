/**
 * Re-records the refund bot's committed cassettes against the scripted provider:
 *
 *   node examples/refund-bot/record-cassettes.ts
 *
 * `refund-a17` is a clean refund; `refund-a17-violation` is the same request with a model that refunds
 * ten times the total, the run the oracle must fail. (When the Vitest plugin lands, this becomes
 * `npx crashlab vitest --record`.)
 */
import { join } from 'node:path'
import { startScriptedProvider } from '../../src/testing/index.ts'
import './oracles.ts'
import { recordCassette } from './run-refund-bot.ts'
import { refundModel } from './scripted-model.ts'

export const CASSETTES = join(import.meta.dirname, '__cassettes__')
export const INPUT = 'Refund my order A17, it arrived broken'

const cases = [
  { file: 'refund-a17.cassette.json', violationRate: 0 },
  { file: 'refund-a17-violation.cassette.json', violationRate: 1 },
]

for (const c of cases) {
  const provider = await startScriptedProvider({
    policy: refundModel({ violationRate: c.violationRate }),
    seed: 1,
  })
  try {
    const run = await recordCassette(join(CASSETTES, c.file), INPUT, `${provider.url}/v1`)
    console.log(`${c.file}: ${run.steps.length} steps, outcome ${run.outcome}`)
  } finally {
    await provider.close()
  }
}
