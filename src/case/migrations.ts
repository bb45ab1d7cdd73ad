import { CrashlabError } from '../errors.ts'
import { CASSETTE_VERSION } from './schema/cassette.ts'

/**
 * One step of the cassette migration chain: takes a parsed document of format version `from` and
 * returns the same run in format version `to`. It works on plain parsed JSON, before any validation,
 * because the current schema cannot describe an old document; the result is validated afterwards.
 */
export interface CassetteMigration {
  from: number
  to: number
  /** May mutate `doc` (the loader owns it: it was just parsed). Need not set `version`: the chain does. */
  migrate(doc: Record<string, unknown>): Record<string, unknown>
}

/**
 * The registered migrations, oldest first.
 *
 * Empty on purpose: format version 1 is the first version crashlab ever released, so no older cassette
 * exists to migrate. The chain below is still exercised by tests (with a v0→v1 step they register), so
 * that the day version 2 ships, adding its `{ from: 1, to: 2 }` step here is the whole job.
 *
 * @example
 * // when version 2 renames `run.tags` to `run.labels`:
 * // { from: 1, to: 2, migrate: ({ run, ...doc }) => ({ ...doc, run: renameKey(run, 'tags', 'labels') }) }
 */
export const CASSETTE_MIGRATIONS: readonly CassetteMigration[] = []

export interface MigrateOptions {
  /** The file, for messages. */
  source?: string
  /** The registry to use; `CASSETTE_MIGRATIONS` when omitted. */
  migrations?: readonly CassetteMigration[]
  /** The version to reach; `CASSETTE_VERSION` when omitted. */
  target?: number
}

/**
 * Brings a parsed cassette of an older format version up to `CASSETTE_VERSION`, one registered step at
 * a time. A document already at the target is returned as is. A missing step (a gap in the chain) is an
 * `E_CASSETTE_VERSION` error that names the version and what the registry can migrate; a step that
 * throws is `E_CASSETTE_INVALID`, since the document does not have the shape its version promises.
 *
 * @example
 * const doc = migrateCassette(JSON.parse(text), { source: path }) // doc.version === CASSETTE_VERSION
 */
export function migrateCassette(
  doc: Record<string, unknown>,
  options: MigrateOptions = {},
): Record<string, unknown> {
  const target = options.target ?? CASSETTE_VERSION
  const where = options.source ? `cassette ${options.source}` : 'the cassette'
  const byFrom = indexChain(options.migrations ?? CASSETTE_MIGRATIONS, target)
  let current = doc
  let version = current.version as number
  while (version < target) {
    const step = byFrom.get(version)
    if (!step) {
      const known = [...byFrom.keys()].sort((a, b) => a - b)
      throw new CrashlabError(
        'E_CASSETTE_VERSION',
        `${where} has format version ${version}, and this crashlab cannot migrate it: there is no migration ` +
          `from version ${version} (it reads version ${target}${known.length ? `, and migrates from ${known.join(', ')}` : ' and knows no older version'}). ` +
          're-record it with `npx crashlab vitest --record`.',
        { subject: options.source },
      )
    }
    let next: unknown
    try {
      next = step.migrate(current)
    } catch (cause) {
      throw new CrashlabError(
        'E_CASSETTE_INVALID',
        `${where} could not be migrated from format version ${step.from} to ${step.to}: ${(cause as Error)?.message ?? cause}. ` +
          'It does not have the shape its version promises; re-record it with `npx crashlab vitest --record`.',
        { cause, subject: options.source },
      )
    }
    if (typeof next !== 'object' || next === null || Array.isArray(next)) {
      throw new TypeError(`the cassette migration from ${step.from} to ${step.to} returned no object`)
    }
    current = next as Record<string, unknown>
    current.version = step.to
    version = step.to
  }
  return current
}

/** Indexes the registry by `from` and refuses a registry that could loop, skip past the target or branch. */
function indexChain(
  migrations: readonly CassetteMigration[],
  target: number,
): Map<number, CassetteMigration> {
  const byFrom = new Map<number, CassetteMigration>()
  for (const m of migrations) {
    // These are programming errors in crashlab itself, not problems of the file: a TypeError, not a CrashlabError.
    if (!Number.isInteger(m.from) || !Number.isInteger(m.to) || m.to <= m.from || m.to > target) {
      throw new TypeError(
        `bad cassette migration ${m.from} → ${m.to}: steps go forward, up to version ${target}`,
      )
    }
    if (byFrom.has(m.from)) throw new TypeError(`two cassette migrations start at version ${m.from}`)
    byFrom.set(m.from, m)
  }
  return byFrom
}
