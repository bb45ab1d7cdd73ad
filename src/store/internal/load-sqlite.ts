type Sqlite = typeof import('node:sqlite')

let loaded: Sqlite | undefined

/**
 * Node's built-in `node:sqlite`, loaded on first use without its one-time warning.
 *
 * Node 22.13+ prints `ExperimentalWarning: SQLite is an experimental feature and might change at any
 * time` the first time the module is loaded. A production process that captures runs should not print
 * that to its users' logs because crashlab keeps its index in SQLite, so exactly that warning is dropped:
 * `process.emitWarning` is replaced for the duration of the load only, and lets every other warning
 * through (another module's ExperimentalWarning included). Loading through `process.getBuiltinModule`
 * rather than a static import keeps the load synchronous (the replacement cannot leak past it), out of
 * bundlers' module graphs, and without an ES-module facade of the built-in. A process that loaded `node:sqlite` before sees no warning from Node either way.
 *
 * @example
 * const { DatabaseSync } = sqlite()
 * const db = new DatabaseSync(':memory:')
 */
export function sqlite(): Sqlite {
  if (loaded) return loaded
  const original = process.emitWarning
  process.emitWarning = function emitWarning(this: unknown, warning: string | Error, ...rest: unknown[]) {
    if (isSqliteWarning(warning, rest[0])) return
    return (original as (...args: unknown[]) => void).call(process, warning, ...rest)
  } as typeof process.emitWarning
  try {
    loaded = process.getBuiltinModule('node:sqlite') as Sqlite
  } finally {
    process.emitWarning = original
  }
  return loaded
}

function isSqliteWarning(warning: string | Error, typeOrOptions: unknown): boolean {
  const message = typeof warning === 'string' ? warning : warning?.message
  const type =
    typeof typeOrOptions === 'string'
      ? typeOrOptions
      : ((typeOrOptions as { type?: string } | undefined)?.type ??
        (typeof warning === 'object' ? warning?.name : undefined))
  return type === 'ExperimentalWarning' && /^SQLite is an experimental feature/.test(message ?? '')
}
