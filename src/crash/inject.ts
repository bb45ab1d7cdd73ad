import type { JsonValue } from '../case/schema/json.ts'
import type { Run } from '../case/schema/run.ts'
import type { Step } from '../case/schema/step.ts'
import type { FaultInjection } from '../engine/types.ts'
import { CrashlabError } from '../errors.ts'
import { FAULT_KINDS, type Fault, faultLabel, isMcpFault, isModelFault } from './faults.ts'
import { mcpFaultAnswer } from './mcp-fault.ts'
import { modelFaultAnswer } from './model-fault.ts'
import { toolFaultOutcome } from './tool-fault.ts'

/**
 * The Session's injection for `fault` at recorded step `atStep`: a model fault answers the model call
 * that step recorded (written by the call's own adapter, from the recorded answer), a tool fault the
 * `tool()` call, an MCP fault the MCP server's `tools/call`. The fault itself, as data, is the run's `links.crashOf.fault`.
 *
 * @example
 * const session = new Session({ mode: 'replay', recorded: run, inject: faultInjection({ kind: 'rate_limit' }, 2) })
 */
export function faultInjection(fault: Fault, atStep: number): FaultInjection & { label: JsonValue } {
  const label = fault as unknown as JsonValue
  if (isModelFault(fault)) {
    return {
      atStep,
      label,
      call: (ctx, recorded) => {
        if (!ctx.adapter || recorded.type !== 'llm')
          throw new CrashlabError(
            'E_FAULT_INVALID',
            `${faultLabel(fault)} is a model fault, and step ${atStep} is not a model call: see \`crashlab show\` for the steps.`,
          )
        return modelFaultAnswer(fault, {
          adapter: ctx.adapter,
          streaming: ctx.adapter.isStreaming(ctx.wire),
          requestBody: ctx.wire.body ?? null,
          url: ctx.wire.url,
          recorded: recorded.response?.normalized ?? null,
        })
      },
    }
  }
  if (isMcpFault(fault)) return { atStep, label, mcp: (recorded) => mcpFaultAnswer(fault, recorded.name) }
  return {
    atStep,
    label,
    tool: (recorded) => toolFaultOutcome(fault, { tool: recorded.name, recordedResult: recorded.result }),
  }
}

/** One cell of a crash-test matrix: a fault at a recorded step. */
export interface CrashCell {
  /** The recorded step (its index, as `crashlab show` lists it) whose answer is the fault. */
  step: number
  fault: Fault
}

/**
 * Whether `fault` can stand in for `step`'s answer: a model fault at a model call, a tool fault at a
 * `tool()` call, an MCP fault at an MCP server's `tools/call` (a `tool` step with `mcp`).
 *
 * @example
 * faultFits({ kind: 'rate_limit' }, run.steps[0]) // true for an llm step
 */
export function faultFits(fault: Fault, step: Step): boolean {
  switch (FAULT_KINDS[fault.kind].target) {
    case 'model':
      return step.type === 'llm'
    case 'tool':
      return step.type === 'tool' && step.mcp === undefined
    case 'mcp':
      return step.type === 'tool' && step.mcp !== undefined
  }
}

/**
 * The cells of a crash test over `run`: every fault at every step it fits, among `steps` (default: all
 * the run's steps), steps first then faults in the order given. A step out of the run is
 * `E_FAULT_INVALID`, naming the run's steps.
 *
 * @example
 * crashCells(run, ALL_MODEL_FAULTS) // each model fault at each model call
 */
export function crashCells(run: Run, faults: readonly Fault[], steps?: readonly number[]): CrashCell[] {
  const wanted = steps ?? run.steps.map((s) => s.index)
  const cells: CrashCell[] = []
  for (const index of wanted) {
    const step = run.steps[index]
    if (!Number.isInteger(index) || !step)
      throw new CrashlabError(
        'E_FAULT_INVALID',
        `run ${run.id} has ${run.steps.length} steps (0 to ${run.steps.length - 1}): there is no step ${index}. ` +
          `See the steps with \`crashlab show ${run.id}\`.`,
        { subject: run.id },
      )
    for (const fault of faults) if (faultFits(fault, step)) cells.push({ step: index, fault })
  }
  return cells
}
