import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AgentCase } from '../../case/agentcase/schema.ts'
import { captureCase } from '../explicit-capture.ts'
import type { CaptureCaseOptions, ExplicitCapture } from '../types.ts'

/**
 * Test helpers of src/agentcase-capture: a scratch folder per test file and a small captured case (one model
 * call that asks for a tool, the tool call, a second model call), built through the public API so that
 * the replay tests exercise what capture really writes.
 */

/**
 * A scratch folder and a function that removes it.
 *
 * @example
 * const { dir, cleanup } = scratchDir('capture'); afterAll(cleanup)
 */
export function scratchDir(label: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `crashlab-${label}-`))
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

/** The requests of the sample case, for replays that send them again. */
export const SAMPLE = {
  first: { provider: 'local', model: 'tiny-7b', input: { prompt: 'Refund order A17' } },
  tool: { name: 'get_order', args: { id: 'A17' } },
  second: { provider: 'local', model: 'tiny-7b', input: { prompt: 'Order A17: delivered, broken' } },
} as const

/**
 * Records the sample execution into `session`: model → tool → model, each answered.
 *
 * @example
 * recordSample(captureCase({ output }))
 */
export function recordSample(s: ExplicitCapture): void {
  const r1 = s.modelRequest({ ...SAMPLE.first, parameters: { temperature: 0 } })
  const a1 = s.modelResponse({ parentEventId: r1, output: { tool_calls: [{ name: 'get_order' }] } })
  const call = s.toolCall({ name: SAMPLE.tool.name, arguments: SAMPLE.tool.args, parentEventId: a1 })
  s.toolResult({ parentEventId: call, result: { status: 'delivered', damaged: true }, latencyMs: 3 })
  const r2 = s.modelRequest(SAMPLE.second)
  s.modelResponse({ parentEventId: r2, output: { text: 'Refund issued' }, finishReason: 'stop' })
}

/**
 * Captures the sample case to `<dir>/<file>` and returns the case as written.
 *
 * @example
 * const c = sampleCase(dir, 'sample.agentcase')
 */
export function sampleCase(
  dir: string,
  file: string,
  record: (s: ExplicitCapture) => void = recordSample,
  options: Omit<CaptureCaseOptions, 'output'> = {},
): AgentCase {
  const session = captureCase({ output: join(dir, file), name: 'refund-bot', ...options })
  record(session)
  return session.close()
}
