/**
 * The path rules moved to the cassette store (`src/cassette-store/cassette-paths.ts`), which owns where
 * a test's cassette, sidecar files and baselines live; re-exported here so existing imports keep working.
 */
export { cassetteFolderFor, cassettePathFor, sanitizeTestName } from '../cassette-store/cassette-paths.ts'
