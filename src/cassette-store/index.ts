/**
 * Cassette storage: where a test's cassette, its sidecar files and its baselines live (one path rule,
 * the plugin's `cassetteDir` included), and the `CassetteStore` that reads, writes, lists and removes
 * them. No Vitest here: the plugin, the matchers and the reporter use it.
 */
export {
  BASELINE_SUFFIX,
  baselinePathFor,
  CASSETTE_SUFFIX,
  cassetteFolderFor,
  cassettePathFor,
  DEFAULT_CASSETTE_DIR,
  mayBelongToTest,
  sanitizeTestName,
} from './cassette-paths.ts'
export type { CassetteStore, StoredEntry } from './cassette-store.ts'
export { type FileCassetteStoreOptions, fileCassetteStore } from './file-cassette-store.ts'
