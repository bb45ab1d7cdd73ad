import type { z } from 'zod'
import type { ValidationIssue } from '../../../errors.ts'
import { jsonPath, toValidationIssues } from '../../validation-issues.ts'

/** Renders path segments as `$.events[3].payload` (the shared notation of crashlab's errors). */
export const dollarPath = jsonPath

/**
 * Turns zod issues on an AgentCase into crashlab's issue list; unknown keys say where extra data belongs.
 *
 * @example
 * zodIssuesToValidationIssues(AgentCaseSchema.safeParse(x).error!.issues)
 */
export function zodIssuesToValidationIssues(issues: readonly z.core.$ZodIssue[]): ValidationIssue[] {
  return toValidationIssues(issues, {
    unknownKey: (key) =>
      `unknown key '${key}': AgentCase objects are strict; put your own data under an "extensions" object`,
  })
}
