import { CrashlabError } from '../../errors.ts'

/**
 * A CLI usage error: what was wrong with an option, and the exit code 1 that `reportError` gives it.
 * Its own module: the root command loads it before any subcommand, so it must not bring the schemas
 * that `parse-options.ts` reads severities with.
 *
 * @example
 * throw usageError('`crashlab ls` needs --dir')
 */
export function usageError(message: string): CrashlabError {
  return new CrashlabError('E_CLI_USAGE', `${message} (see \`crashlab <command> --help\`)`)
}
