import { existsSync, readdirSync, readFileSync, rmdirSync, rmSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import {
  type AgentCase,
  type Cassette,
  cassetteFilesDir,
  type LoadCassetteOptions,
  loadAgentCase,
  loadCassette,
  type Run,
  type WriteCassetteOptions,
  writeAgentCase,
  writeCassette,
} from '../case/index.ts'
import type { Redactor } from '../redact/index.ts'
import {
  BASELINE_SUFFIX,
  baselinePathFor,
  CASSETTE_SUFFIX,
  cassetteFolderFor,
  cassettePathFor,
  DEFAULT_CASSETTE_DIR,
} from './cassette-paths.ts'
import type { CassetteStore, StoredEntry } from './cassette-store.ts'

/**
 * Options of `fileCassetteStore`.
 *
 * @example
 * const options: FileCassetteStoreOptions = { cassetteDir: 'recordings', redactor: createRedactor({ keys: ['x-tenant'] }) }
 */
export interface FileCassetteStoreOptions {
  /**
   * Where cassettes and baselines live, resolved against each test file's folder; an absolute path is
   * used as it is (the plugin's `cassetteDir` option). Default `__cassettes__`.
   */
  cassetteDir?: string
  /** The redaction rules of every write; a write's own `redactor` option wins. Default: crashlab's defaults. */
  redactor?: Redactor
}

/**
 * The file-system cassette store, the one the plugin and the matchers use:
 * `<cassetteDir>/<test file name>/<test name>.cassette.json` (with its `.cassette.files/` sidecar
 * folder) and `<test name>[.<name>].agentcase` beside it. Writes go through `writeCassette` and
 * `writeAgentCase`: redacted, validated, and atomic (a temp file renamed over the target).
 *
 * @example
 * const store = fileCassetteStore({ cassetteDir: '__recordings__' })
 * store.baselinePath('/repo/test/refund.test.ts', 'refund > clean')
 * // '/repo/test/__recordings__/refund.test.ts/refund › clean.agentcase'
 */
export function fileCassetteStore(options: FileCassetteStoreOptions = {}): CassetteStore {
  const dir = options.cassetteDir ?? DEFAULT_CASSETTE_DIR
  return {
    folderOf: (testFile) => cassetteFolderFor(testFile, dir),
    cassettePath: (testFile, fullName) => cassettePathFor(testFile, fullName, dir),
    baselinePath: (testFile, fullName, name) => baselinePathFor(testFile, fullName, name, dir),
    exists: (path) => isFile(path),
    readText: (path) => (isFile(path) ? readFileSync(path, 'utf8') : undefined),
    readCassette: (path: string, load?: LoadCassetteOptions): Cassette => loadCassette(path, load),
    writeCassette: (path: string, run: Run, write: WriteCassetteOptions = {}): Cassette =>
      writeCassette(path, run, { ...(options.redactor && { redactor: options.redactor }), ...write }),
    readBaseline: (path: string): AgentCase => loadAgentCase(path),
    writeBaseline: (path: string, c: AgentCase): AgentCase =>
      writeAgentCase(path, c, { ...(options.redactor && { redactor: options.redactor }) }),
    remove: (path) => removeEntry(path),
    list: (testFile) => listFolder(cassetteFolderFor(testFile, dir)),
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile()
  } catch {
    return false
  }
}

function removeEntry(path: string): void {
  rmSync(path, { force: true })
  // A cassette's binary bodies go with it.
  if (path.endsWith(CASSETTE_SUFFIX)) rmSync(cassetteFilesDir(path), { recursive: true, force: true })
  // A test file whose last entry went leaves no empty folder behind.
  const folder = dirname(path)
  try {
    if (existsSync(folder) && readdirSync(folder).length === 0) rmdirSync(folder)
  } catch {
    // Another writer got there first: the folder stays, which is harmless.
  }
}

function listFolder(folder: string): StoredEntry[] {
  let names: string[]
  try {
    names = readdirSync(folder)
  } catch {
    return []
  }
  const entries: StoredEntry[] = []
  // Dot-prefixed names are a writer's temp files (see writeFileAtomic), never entries.
  for (const name of names.sort()) {
    if (name.startsWith('.')) continue
    const path = join(folder, name)
    if (name.endsWith(CASSETTE_SUFFIX) && isFile(path)) entries.push({ kind: 'cassette', path, name })
    else if (name.endsWith(BASELINE_SUFFIX) && isFile(path)) entries.push({ kind: 'baseline', path, name })
  }
  return entries
}
