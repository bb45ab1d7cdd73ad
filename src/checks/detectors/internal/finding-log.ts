import type { Finding, Severity } from '../../../case/schema/step.ts'

/** How bad each severity is, to tell an escalation from a repeat. */
export const SEVERITY_RANK: Readonly<Record<Severity, number>> = { info: 0, warn: 1, error: 2, critical: 3 }

/**
 * One finding as a detector keeps it while the run goes on: it may grow (more steps, a new count in the
 * message) and escalate (warn to critical) in place, so the final list holds each problem once.
 */
export interface FindingSlot {
  readonly kind: string
  severity: Severity
  steps: number[]
  message: string
  evidence: string[]
}

/**
 * The findings of one run, in the order they were first raised, and which of them the current step
 * raised or escalated (what `observe` reports). Snapshots are copies: a finding handed out never changes
 * afterwards, even when its slot grows.
 */
export class FindingLog {
  private readonly slots: FindingSlot[] = []
  private readonly touched = new Set<FindingSlot>()

  /** Raises a new finding; the current step reports it. */
  open(finding: Finding): FindingSlot {
    const slot: FindingSlot = {
      kind: finding.kind,
      severity: finding.severity,
      steps: [...finding.steps],
      message: finding.message,
      evidence: [...finding.evidence],
    }
    this.slots.push(slot)
    this.touched.add(slot)
    return slot
  }

  /**
   * Raises an existing finding's severity (a streak that went from warn to critical); the current step
   * reports it again, with its new severity. A lower or equal severity only updates the text.
   */
  escalate(slot: FindingSlot, severity: Severity, message: string, evidence?: string[]): void {
    if (SEVERITY_RANK[severity] > SEVERITY_RANK[slot.severity]) {
      slot.severity = severity
      this.touched.add(slot)
    }
    slot.message = message
    if (evidence) slot.evidence = evidence
  }

  /** Adds a step to a finding without reporting it again (a streak that goes on at the same severity). */
  addStep(slot: FindingSlot, step: number): void {
    if (slot.steps[slot.steps.length - 1] !== step) slot.steps.push(step)
  }

  /** What the current step raised or escalated, as snapshots; starts the next step's list. */
  drain(): Finding[] {
    if (this.touched.size === 0) return []
    const out = [...this.touched].map(snapshot)
    this.touched.clear()
    return out
  }

  /** Every finding so far, in the order first raised, as snapshots. */
  all(): Finding[] {
    return this.slots.map(snapshot)
  }
}

function snapshot(slot: FindingSlot): Finding {
  return {
    kind: slot.kind,
    severity: slot.severity,
    steps: [...slot.steps],
    message: slot.message,
    evidence: [...slot.evidence],
  }
}
