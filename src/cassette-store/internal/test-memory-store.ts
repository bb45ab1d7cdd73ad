import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { bodyFilesOf } from '../../case/binary-bodies.ts'
import { prepareCassette } from '../../case/cassette-write.ts'
import {
  type AgentCase,
  attachBinary,
  type Cassette,
  cassetteFilesDir,
  parseAgentCase,
  parseCassette,
  writeAgentCase,
} from '../../case/index.ts'
import { CrashlabError } from '../../errors.ts'
import {
  BASELINE_SUFFIX,
  baselinePathFor,
  CASSETTE_SUFFIX,
  cassetteFolderFor,
  cassettePathFor,
  DEFAULT_CASSETTE_DIR,
} from '../cassette-paths.ts'
import type { CassetteStore, StoredEntry } from '../cassette-store.ts'

/**
 * A cassette store that keeps its entries in a Map, for tests (not shipped): it proves the contract is
 * the store's and not the file system's, and runs the same contract suite. Same path rules, same
 * redaction and validation (`prepareCassette` does everything `writeCassette` does but the writes); a
 * baseline is redacted by `writeAgentCase`, the one way to its redaction, into a scratch file that is
 * read back and removed at once.
 *
 * @example
 * const store = memoryCassetteStore({ cassetteDir: 'recordings' })
 * store.writeCassette(store.cassettePath('/repo/a.test.ts', 'refund'), run)
 */
export function memoryCassetteStore(options: { cassetteDir?: string } = {}): CassetteStore & {
  /** Every stored path (entries and sidecar files), sorted. */
  paths(): string[]
} {
  const dir = options.cassetteDir ?? DEFAULT_CASSETTE_DIR
  const texts = new Map<string, string>()
  const bytes = new Map<string, Uint8Array>()
  const text = (path: string, what: string): string => {
    const found = texts.get(path)
    if (found === undefined)
      throw new CrashlabError('E_CASSETTE_NOT_FOUND', `no ${what} is stored at ${path}: write it first.`, {
        subject: path,
      })
    return found
  }
  return {
    folderOf: (testFile) => cassetteFolderFor(testFile, dir),
    cassettePath: (testFile, fullName) => cassettePathFor(testFile, fullName, dir),
    baselinePath: (testFile, fullName, name) => baselinePathFor(testFile, fullName, name, dir),
    exists: (path) => texts.has(path),
    readText: (path) => texts.get(path),
    readCassette(path): Cassette {
      const cassette = parseCassette(text(path, 'cassette'), { source: path })
      for (const file of bodyFilesOf(cassette.run)) {
        const held = bytes.get(join(cassetteFilesDir(path), file.sha256))
        if (held) attachBinary(file, held)
      }
      return cassette
    },
    writeCassette(path, run, write = {}): Cassette {
      // Throws before anything is stored: an invalid run leaves the store as it was.
      const prepared = prepareCassette(path, run, write)
      for (const file of prepared.files) {
        const held = prepared.held.get(file.sha256)
        if (held) bytes.set(join(cassetteFilesDir(path), file.sha256), held)
      }
      texts.set(path, prepared.text)
      return prepared.cassette
    },
    readBaseline: (path): AgentCase => parseAgentCase(text(path, 'baseline'), { source: path }),
    writeBaseline(path, c): AgentCase {
      const scratch = mkdtempSync(join(tmpdir(), 'crashlab-memory-store-'))
      try {
        const file = join(scratch, 'case.agentcase')
        const written = writeAgentCase(file, c)
        texts.set(path, readFileSync(file, 'utf8'))
        return written
      } finally {
        rmSync(scratch, { recursive: true, force: true })
      }
    },
    remove(path): void {
      texts.delete(path)
      const sidecars = `${cassetteFilesDir(path)}/`
      for (const key of [...bytes.keys()]) if (key.startsWith(sidecars)) bytes.delete(key)
    },
    list(testFile): StoredEntry[] {
      const folder = `${cassetteFolderFor(testFile, dir)}/`
      const entries: StoredEntry[] = []
      for (const path of [...texts.keys()].sort()) {
        if (!path.startsWith(folder)) continue
        const name = path.slice(folder.length)
        if (name.includes('/')) continue
        if (name.endsWith(CASSETTE_SUFFIX)) entries.push({ kind: 'cassette', path, name })
        else if (name.endsWith(BASELINE_SUFFIX)) entries.push({ kind: 'baseline', path, name })
      }
      return entries
    },
    paths: () => [...texts.keys(), ...bytes.keys()].sort(),
  }
}
