import { statSync } from 'node:fs'
import { basename, dirname, isAbsolute, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { toValidationIssues } from '../case/validation-issues.ts'
import { CrashlabError, formatIssues } from '../errors.ts'
import { findConfigFile } from './find-config.ts'
import { type CrashlabConfig, CrashlabConfigSchema } from './schema.ts'

/**
 * Options of `loadConfig`.
 *
 * @example
 * const options: LoadConfigOptions = { cwd: '/repo', file: 'config/crashlab.config.ts' }
 */
export interface LoadConfigOptions {
  /** Where the search starts. Default `process.cwd()`. */
  cwd?: string
  /** A config file to read instead of searching; `false` reads none. */
  file?: string | false
  /** Read for `CRASHLAB_CONFIG`. Default `process.env`. */
  env?: NodeJS.ProcessEnv
  /**
   * The file's `configStamp` when another process of this run has validated it (the Vitest plugin, for
   * its workers): a file that still has this stamp is not validated again, so a worker loads no schema
   * (and no zod) for it. A file changed since is validated as usual.
   */
  validated?: string
}

/**
 * A loaded project config: the file it came from (null when there is none) and what it says, validated,
 * with `store.dir` made absolute against the file's folder.
 *
 * @example
 * const { path, config } = await loadConfig()
 * if (path) console.log(`using ${path}`, config.checks)
 */
export interface LoadedConfig {
  path: string | null
  config: CrashlabConfig
}

interface CacheEntry {
  stamp: string
  /** What the file exports, as loaded. */
  raw: unknown
  /** The config as loaded: validated, unless trusted by its stamp (`validated`). */
  loaded: LoadedConfig
  /** Whether `loaded` went through the schema here. */
  checked: boolean
}

const cache = new Map<string, CacheEntry>()

/**
 * Reads the project config file (`crashlab.config.ts`, see `findConfigFile`), the one way the Vitest
 * plugin, the CLI and production capture all read it: TypeScript is compiled on the fly (jiti), the
 * default export may be the config or a function returning it, and the result is validated. A file that
 * does not load fails with `E_CONFIG_LOAD`; a bad key fails with `E_CONFIG_INVALID` and the path of every
 * bad key. No file is not an error: the config is then `{}`. A file is read again only when it changed.
 *
 * @example
 * import { loadConfig } from 'crashlab'
 * const { config } = await loadConfig({ cwd: process.cwd() })
 * config.checks?.maxSteps // 20
 */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<LoadedConfig> {
  const cwd = options.cwd ?? process.cwd()
  if (options.file === false) return { path: null, config: {} }
  const path = options.file ? resolve(cwd, options.file) : findConfigFile(cwd, options.env)
  if (!path) return { path: null, config: {} }
  const stamp = stampOf(path)
  const trusted = options.validated === stamp
  const hit = cache.get(path)
  if (hit && hit.stamp === stamp && (hit.checked || trusted)) return hit.loaded
  const raw = hit && hit.stamp === stamp ? hit.raw : await importConfig(path, stamp)
  const config = trusted ? withAbsoluteStore(raw as CrashlabConfig, path) : validateConfig(raw, path)
  const loaded = { path, config }
  cache.set(path, { stamp, raw, loaded, checked: !trusted })
  return loaded
}

/**
 * Validates a config object (from a file, or passed in code) and fills in nothing: what the user wrote,
 * checked. `where` names the source in the error.
 *
 * @example
 * validateConfig({ checks: { maxSteps: 'twenty' } }, 'crashlab.config.ts')
 * // throws E_CONFIG_INVALID: crashlab.config.ts: ✖ … → at $.checks.maxSteps
 */
export function validateConfig(value: unknown, where: string): CrashlabConfig {
  const parsed = CrashlabConfigSchema.safeParse(value)
  if (!parsed.success) {
    const issues = toValidationIssues(parsed.error.issues, {
      unknownKey: (key) => `unknown key ${JSON.stringify(key)}: docs/config.md lists every key`,
    })
    throw new CrashlabError(
      'E_CONFIG_INVALID',
      `${where} is not a valid crashlab config:\n${formatIssues(issues)}\nFix the keys named above.`,
      { issues, subject: where },
    )
  }
  // The parsed value has the schema's defaults filled in; keep what the user wrote, so that merging
  // layers lets a nearer layer's explicit setting win over a farther one's, and never a default.
  return withAbsoluteStore(value as CrashlabConfig, where)
}

/** The config with `store.dir` made absolute against the folder of the file it came from. */
function withAbsoluteStore(config: CrashlabConfig, where: string): CrashlabConfig {
  if (config.store?.dir && !isAbsolute(config.store.dir) && isAbsolute(where)) {
    return { ...config, store: { ...config.store, dir: resolve(dirname(where), config.store.dir) } }
  }
  return config
}

async function importConfig(path: string, stamp: string): Promise<unknown> {
  let mod: unknown
  try {
    mod = await importNatively(path, stamp)
    if (mod === NOT_NATIVE) mod = await importWithJiti(path)
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message.split('\n')[0] : String(cause)
    throw new CrashlabError(
      'E_CONFIG_LOAD',
      `could not load the config file ${path}: ${reason}. Fix the file, or point CRASHLAB_CONFIG at another one.`,
      { cause, subject: path },
    )
  }
  if (typeof mod === 'function') {
    try {
      mod = await (mod as () => unknown)()
    } catch (cause) {
      throw new CrashlabError(
        'E_CONFIG_LOAD',
        `the config function exported by ${basename(path)} threw: ${cause instanceof Error ? cause.message : String(cause)}`,
        { cause, subject: path },
      )
    }
  }
  if (typeof mod !== 'object' || mod === null || Array.isArray(mod)) {
    throw new CrashlabError(
      'E_CONFIG_INVALID',
      `${path} must export a config object as default (export default defineConfig({ … })); it exports ${mod === null ? 'null' : Array.isArray(mod) ? 'an array' : typeof mod}.`,
      { subject: path },
    )
  }
  return mod
}

/**
 * What tells one version of a config file from another: its modification time and size. The Vitest
 * plugin hands it to its workers with the file it validated (`LoadConfigOptions.validated`).
 *
 * @example
 * await loadConfig({ file: path, validated: configStamp(path) }) // no validation if unchanged since
 */
export function configStamp(path: string): string {
  return stampOf(path)
}

const NOT_NATIVE = Symbol('not loadable by Node itself')

/**
 * The config module loaded by Node itself, which strips TypeScript's types (Node ≥ 22.18): about 0.13 s
 * for a `.ts` file (Node's type stripper loads on first use) and 1 ms for a `.mjs` one, where jiti and
 * the Babel it brings cost a process about 0.32 s (2 cores), and every Vitest worker reads the file. The stamp in the URL makes a changed file a new module (Node caches modules by URL). NOT_NATIVE
 * when Node cannot load it (an older Node, TypeScript beyond type annotations such as `enum`, an import
 * without its file extension): jiti loads those. An error the config itself throws is the config's.
 */
async function importNatively(path: string, stamp: string): Promise<unknown> {
  try {
    const ns = (await import(`${pathToFileURL(path).href}?stamp=${encodeURIComponent(stamp)}`)) as Record<
      string,
      unknown
    >
    return 'default' in ns ? ns.default : ns
  } catch (error) {
    if (error instanceof SyntaxError) return NOT_NATIVE
    const code = (error as { code?: unknown } | null)?.code
    if (typeof code === 'string' && code.startsWith('ERR_')) return NOT_NATIVE
    throw error
  }
}

async function importWithJiti(path: string): Promise<unknown> {
  // Loaded here, not with this module: a project without a config file never needs a TypeScript loader.
  const { createJiti } = await import('jiti')
  const jiti = createJiti(import.meta.url, { moduleCache: false, fsCache: false, interopDefault: true })
  return jiti.import(path, { default: true })
}

function stampOf(path: string): string {
  try {
    const s = statSync(path)
    return `${s.mtimeMs}:${s.size}`
  } catch (cause) {
    throw new CrashlabError(
      'E_CONFIG_LOAD',
      `the config file ${path} does not exist. Create it, or unset CRASHLAB_CONFIG.`,
      { cause, subject: path },
    )
  }
}
