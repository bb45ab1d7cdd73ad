import { basename, dirname, join } from 'node:path'
import { sanitizeTestName } from '../../src/index.ts'

/**
 * Baselines live beside the test's cassettes, one file per test (and per name, when a test keeps
 * several): `<dir of test file>/__cassettes__/<test file name>/<test name>[.<name>].agentcase`. The test
 * name becomes a file name by the core's rule (`sanitizeTestName`, the one the plugin's cassette paths
 * use), so a test's cassette and its baseline share a stem and sort together.
 */
export { sanitizeTestName }

/**
 * The default baseline path of a test: beside its cassette, with `.agentcase` instead of `.cassette.json`.
 *
 * @example
 * defaultBaselinePath('/repo/refund.test.ts', 'refund > happy path', 'final')
 * // '/repo/__cassettes__/refund.test.ts/refund › happy path.final.agentcase'
 */
export function defaultBaselinePath(testPath: string, testName: string, name?: string): string {
  const suffix = name === undefined ? '' : `.${sanitizeTestName(name)}`
  return join(
    dirname(testPath),
    '__cassettes__',
    basename(testPath),
    `${sanitizeTestName(testName)}${suffix}.agentcase`,
  )
}
