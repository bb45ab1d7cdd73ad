import type { z } from 'zod'
import { toValidationIssues } from '../../case/validation-issues.ts'
import { CrashlabError, formatIssues, type ValidationIssue } from '../../errors.ts'

/** Where a user reads what each patch kind takes. */
export const DOCS = 'docs/patches.md lists every kind with an example'

/** zod's issues on a patch as crashlab's issue list; an unknown key is named at its own path. */
export function patchIssues(issues: readonly z.core.$ZodIssue[]): ValidationIssue[] {
  return toValidationIssues(issues, {
    unknownKey: (key) =>
      `unknown key ${JSON.stringify(key)}: patches are strict, so a misspelt key is an error`,
  })
}

/** The `E_PATCH_INVALID` error for a patch that does not match its schema. */
export function invalidPatch(source: string, issues: ValidationIssue[]): CrashlabError {
  return new CrashlabError(
    'E_PATCH_INVALID',
    `${source} is not a valid patch:\n${formatIssues(issues)}\nFix the keys named above; ${DOCS}.`,
    { issues, subject: source },
  )
}

/**
 * The `E_PATCH_TARGET` error: what the patch names that `where` lacks, one problem a line, then how to
 * find the right target.
 */
export function targetError(
  where: string,
  problems: readonly string[],
  next: string,
  subject: string,
): CrashlabError {
  const list = problems.map((p) => `  ✖ ${p}`).join('\n')
  return new CrashlabError('E_PATCH_TARGET', `the patch's target is not in ${where}:\n${list}\n${next}`, {
    subject,
  })
}
