/**
 * The plugin's cassette paths. The rule lives in the core (`src/case/cassette-path.ts`) because the
 * matchers name their baselines by it too.
 */
export { cassetteFolderFor, cassettePathFor, sanitizeTestName } from '../src/internal.ts'
