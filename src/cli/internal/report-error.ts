import { CrashlabError, formatIssues } from '../../errors.ts'

/**
 * Prints a CrashlabError as a user reads it (message, failing paths, code) and sets exit code 1.
 * Anything else is a bug in crashlab, and is rethrown so that its stack is shown.
 */
export function reportError(err: unknown): void {
  if (!(err instanceof CrashlabError)) throw err
  const lines = [err.message]
  // Readers already list the failing paths in the message; add them only where one did not.
  if (err.issues.length > 0 && !err.message.includes('→ at ')) lines.push(formatIssues(err.issues))
  lines.push(`  (${err.code})`)
  console.error(lines.join('\n'))
  process.exitCode = 1
}
