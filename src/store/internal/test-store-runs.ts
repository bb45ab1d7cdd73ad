import { createRun, newRunId } from '../../case/create-run.ts'
import type { CheckResult, Run, RunStatus } from '../../case/schema/run.ts'
import type { Finding, Severity, ToolStep } from '../../case/schema/step.ts'

/** What a test run differs in; everything else is a small valid run of tool steps. */
export interface TestRunOptions {
  name?: string
  /** Minutes after 2026-11-01T00:00Z; later is newer. */
  minute?: number
  status?: RunStatus
  severities?: Severity[]
  failedChecks?: number
  tags?: string[]
  steps?: number
  /** Put into the input and every tool result: a value the redactor must catch. */
  secret?: string
  id?: string
  replayOf?: string
  forkedFrom?: string
}

/**
 * A small, valid, finished run for store tests: `steps` tool steps, findings of the given severities,
 * failed oracles, links.
 *
 * @example
 * store.save(testRun({ name: 'refund-bot', minute: 3, severities: ['warn'] }))
 */
export function testRun(options: TestRunOptions = {}): Run {
  const started = new Date(Date.UTC(2026, 10, 1) + (options.minute ?? 0) * 60_000)
  const run = createRun({
    id: options.id ?? newRunId(),
    name: options.name ?? 'refund-bot',
    input: options.secret ? `Refund A17, my key is ${options.secret}` : 'Refund A17',
    tags: options.tags,
    startedAt: started,
  })
  const steps = options.steps ?? 2
  for (let i = 0; i < steps; i++) {
    const step: ToolStep = {
      type: 'tool',
      index: i,
      name: 'get_order',
      args: { id: 'A17' },
      result: options.secret ? { note: `customer pasted ${options.secret}` } : { status: 'shipped' },
      sideEffects: false,
      timing: { startedAt: started.toISOString(), durationMs: 3 },
      error: null,
    }
    run.steps.push(step)
    run.usage.toolCalls++
  }
  run.status = options.status ?? 'ok'
  run.outcome = 'pass'
  run.endedAt = new Date(started.getTime() + 1000).toISOString()
  run.findings = (options.severities ?? []).map(
    (severity): Finding => ({
      kind: 'test',
      severity,
      steps: [0],
      message: `a ${severity} finding`,
      evidence: [],
    }),
  )
  run.checks = Array.from(
    { length: options.failedChecks ?? 0 },
    (_, i): CheckResult => ({ name: `oracle-${i}`, passed: false, message: 'no' }),
  )
  if (options.replayOf) run.links.replayOf = options.replayOf
  if (options.forkedFrom) run.links.forkedFrom = options.forkedFrom
  return run
}
