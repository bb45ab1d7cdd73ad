/**
 * Normalize + hash a 50-message request, per adapter: microseconds per call, and the ratio against
 * `JSON.stringify` of the same wire body in the same run (the floor). Goal: ≤ 5×.
 *
 *   node bench/provider-hash.bench.ts        (Node 22; ROUNDS=… for more samples)
 */
import os from 'node:os'
import type { WireRequest } from '../src/case/schema/step.ts'
import { CONVERSATION_TOOLS } from '../src/providers/internal/test-conversation.ts'
import {
  ANTHROPIC_CONVERSATION,
  GEMINI_CONVERSATION,
} from '../src/providers/internal/test-conversation-anthropic-gemini.ts'
import {
  OPENAI_CHAT_CONVERSATION,
  OPENAI_RESPONSES_CONVERSATION,
} from '../src/providers/internal/test-conversation-openai.ts'
import { ADAPTERS } from '../src/providers/registry.ts'
import { requestHash } from '../src/providers/request-hash.ts'
import type { ProviderId } from '../src/providers/types.ts'
import { longRequest } from './internal/long-request.ts'
import { median } from './internal/measure.ts'

const ROUNDS = Number(process.env.ROUNDS ?? 15)
const CALLS = 200

function time(fn: () => unknown): number {
  const t0 = performance.now()
  for (let i = 0; i < CALLS; i++) fn()
  return ((performance.now() - t0) * 1000) / CALLS
}

const bases: Record<ProviderId, WireRequest> = {
  'openai-chat': OPENAI_CHAT_CONVERSATION,
  'openai-responses': OPENAI_RESPONSES_CONVERSATION,
  'anthropic-messages': ANTHROPIC_CONVERSATION,
  gemini: GEMINI_CONVERSATION,
}

console.log('crashlab provider benchmark: normalize + hash a 50-message request')
console.log(
  `  node ${process.version}, ${os.cpus().length} CPUs, ${new Date().toISOString()}; median of ${ROUNDS} rounds of ${CALLS} calls`,
)
console.log('')
let worst = 0
for (const adapter of ADAPTERS) {
  const wire = longRequest(adapter.id, bases[adapter.id], CONVERSATION_TOOLS)
  const n = adapter.normalizeRequest(wire).messages.length
  const floor: number[] = []
  const work: number[] = []
  for (let r = 0; r < ROUNDS + 3; r++) {
    const f = time(() => JSON.stringify(wire.body))
    const w = time(() => requestHash({ ...wire, normalized: adapter.normalizeRequest(wire) }))
    if (r >= 3) {
      floor.push(f)
      work.push(w)
    }
  }
  const ratio = median(work) / median(floor)
  worst = Math.max(worst, ratio)
  const bytes = JSON.stringify(wire.body).length
  console.log(
    `  ${adapter.id.padEnd(20)} ${String(n).padStart(3)} msgs ${String(bytes).padStart(6)} B   ` +
      `JSON.stringify ${median(floor).toFixed(1).padStart(6)} µs   normalize+hash ${median(work).toFixed(1).padStart(6)} µs   ${ratio.toFixed(2)}×`,
  )
}
console.log('')
console.log(`worst ratio ${worst.toFixed(2)}× (goal ≤ 5×) ${worst <= 5 ? 'OK' : 'OVER'}`)
