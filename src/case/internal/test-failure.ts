import { expect } from 'vitest'
import { CrashlabError } from '../../errors.ts'

/**
 * Runs `fn`, which must throw a CrashlabError, and returns it so a test can check its code and message.
 * Shared by the cassette tests; excluded from the build like every `internal/test-*` file.
 *
 * @example
 * expect(failure(() => loadCassette(path)).code).toBe('E_CASSETTE_NOT_FOUND')
 */
export function failure(fn: () => unknown): CrashlabError {
  try {
    fn()
  } catch (err) {
    expect(err).toBeInstanceOf(CrashlabError)
    return err as CrashlabError
  }
  throw new Error('expected an error')
}
