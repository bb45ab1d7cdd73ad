import { CrashlabError, formatIssues, isCrashlabError } from '../../errors.ts'

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

/**
 * Prints what escaped a command: crashlab's own errors as `reportError` does, a bug as one
 * `[crashlab] internal error` line without a stack (the stack only with `CRASHLAB_DEBUG` set).
 *
 * @example
 * try { await run() } catch (error) { reportUnexpected(error) }
 */
export function reportUnexpected(error: unknown): void {
  if (isCrashlabError(error)) {
    reportError(error)
    return
  }
  const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
  const clipped = what.length > 500 ? `${what.slice(0, 500)}… (${what.length} characters)` : what
  console.error(
    `[crashlab] internal error: ${clipped}\nThis is a bug in crashlab. Run again with CRASHLAB_DEBUG=1 to see where it happened, and report it.`,
  )
  if (process.env.CRASHLAB_DEBUG && error instanceof Error) console.error(error.stack)
  process.exitCode = 1
}
