import { baselinePathFor, DEFAULT_CASSETTE_DIR, sanitizeTestName } from '../../src/internal.ts'

/**
 * Baselines live beside the test's cassettes, one file per test (and per name, when a test keeps
 * several): `<cassetteDir>/<test file name>/<test name>[.<name>].agentcase`, `cassetteDir` being the
 * plugin's (default `__cassettes__`, beside the test file). The rule is the cassette store's
 * (`baselinePathFor`, src/cassette-store), the one the plugin's cassette paths use, so a test's cassette
 * and its baseline share a stem and sort together.
 */
export { sanitizeTestName }

/**
 * The default baseline path of a test: beside its cassette, with `.agentcase` instead of `.cassette.json`.
 *
 * @example
 * defaultBaselinePath('/repo/refund.test.ts', 'refund > happy path', 'final')
 * // '/repo/__cassettes__/refund.test.ts/refund › happy path.final.agentcase'
 * defaultBaselinePath('/repo/refund.test.ts', 'refund > happy path', undefined, 'recordings')
 * // '/repo/recordings/refund.test.ts/refund › happy path.agentcase'
 */
export function defaultBaselinePath(
  testPath: string,
  testName: string,
  name?: string,
  cassetteDir: string = DEFAULT_CASSETTE_DIR,
): string {
  return baselinePathFor(testPath, testName, name, cassetteDir)
}
