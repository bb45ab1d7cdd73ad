import { existsSync, realpathSync, statSync } from 'node:fs'
import { isAbsolute, resolve, sep } from 'node:path'
import { loadCassette } from '../../case/cassette-load.ts'
import type { IndexDb } from './index-db.ts'
import type { IndexedTest } from './test-sessions-db.ts'

/** What a ref that is not a run id turned out to be, when it named something the index has. */
export type TestRefMatch =
  | { kind: 'id'; id: string }
  | { kind: 'ambiguous'; tests: IndexedTest[] }
  | { kind: 'unindexed-cassette'; path: string; id: string | undefined }
  | { kind: 'no-file'; path: string }
  | undefined

/**
 * The canonical form of a cassette path, as the plugin indexes it and a ref is looked up: absolute,
 * with symbolic links resolved when the file exists (a test file under a linked folder is one file).
 *
 * @example
 * cassetteKey('test/__cassettes__/a.test.ts/x.cassette.json', '/repo') // '/repo/test/__cassettes__/…'
 */
export function cassetteKey(path: string, cwd: string): string {
  const absolute = resolve(cwd, path)
  try {
    return realpathSync(absolute)
  } catch {
    return absolute
  }
}

/**
 * Resolves a ref that names a test run rather than a run id: the path of a test's cassette (absolute,
 * or against `cwd`), or a test's full name, `describe > test`, optionally after its file
 * (`file > describe > test`, the way Vitest prints a failing test). A test name resolves to the run of
 * the newest session that ran that test; names that fit several tests are `ambiguous`.
 *
 * @example
 * matchTestRef(index, 'agent.spec.ts > orders > where is A17', process.cwd()) // { kind: 'id', id: '01JH…' }
 */
export function matchTestRef(index: IndexDb, ref: string, cwd: string): TestRefMatch {
  const path = looksLikePath(ref, cwd) ? cassetteKey(ref, cwd) : undefined
  if (path) {
    const ids = index.idsAtPath(path)
    if (ids.length > 0) return { kind: 'id', id: ids[0] as string }
    if (isFile(path)) {
      // A cassette the index has under another path (copied, or saved into the store): its run id.
      const id = cassetteId(path)
      if (id && index.has(id)) return { kind: 'id', id }
      return { kind: 'unindexed-cassette', path, id }
    }
  }
  const missing = path !== undefined && !existsSync(path) ? path : undefined
  const tests = index.tests.testsEnding(ref).filter((t) => namesTest(ref, t))
  if (tests.length === 1) return { kind: 'id', id: (tests[0] as IndexedTest).runId }
  if (tests.length > 1) {
    // The full name alone, when one test has exactly it and the others only end with it.
    const exact = tests.filter((t) => t.test === ref || `${t.file} > ${t.test}` === ref)
    if (exact.length === 1) return { kind: 'id', id: (exact[0] as IndexedTest).runId }
    return { kind: 'ambiguous', tests }
  }
  return missing ? { kind: 'no-file', path: missing } : undefined
}

/** True when `ref` is the test's full name, or its file (or a path ending with it) then ` > ` and the name. */
function namesTest(ref: string, test: IndexedTest): boolean {
  if (ref === test.test) return true
  const suffix = ` > ${test.test}`
  if (!ref.endsWith(suffix)) return false
  const file = ref.slice(0, -suffix.length).trim().replaceAll('\\', '/')
  const own = test.file.replaceAll('\\', '/')
  return file === own || own.endsWith(`/${file}`) || file.endsWith(`/${own}`)
}

function looksLikePath(ref: string, cwd: string): boolean {
  if (ref.endsWith('.json')) return true
  if (!ref.includes('/') && !ref.includes(sep)) return false
  return isAbsolute(ref) || existsSync(resolve(cwd, ref))
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile()
  } catch {
    return false
  }
}

function cassetteId(path: string): string | undefined {
  try {
    return loadCassette(path, { binaries: false }).run.id
  } catch {
    return undefined
  }
}
