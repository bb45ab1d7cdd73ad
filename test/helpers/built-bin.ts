import { spawn, spawnSync } from 'node:child_process'
import { join, resolve } from 'node:path'

/** The built `crashlab` bin (test/global-setup.ts builds dist/ before the suite): what users run. */
export const BUILT_BIN = join(resolve(import.meta.dirname, '..', '..'), 'dist', 'src', 'cli', 'bin.js')

/** What a run of the bin printed, and how it exited. */
export interface BinResult {
  code: number | null
  stdout: string
  stderr: string
}

/**
 * Runs the built bin in `cwd` with `env` (colours off, the diagnoser's and fixer's own settings
 * removed, so a test's options are the only ones): synchronously, for commands that call nothing in
 * this process.
 *
 * @example
 * const r = runBinSync(dir, { CRASHLAB_DIR: store }, 'ls', '--json')
 */
export function runBinSync(cwd: string, env: Record<string, string>, ...args: string[]): BinResult {
  const r = spawnSync(process.execPath, [BUILT_BIN, ...args], { cwd, encoding: 'utf8', env: binEnv(env) })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

/**
 * The same, asynchronously: a command that calls a scripted provider running in this process must not
 * block the event loop that serves it.
 *
 * @example
 * const r = await runBin(dir, { CRASHLAB_DIR: store }, ['diagnose', id, '--model', 'm', '--base-url', url])
 */
export function runBin(
  cwd: string,
  env: Record<string, string>,
  args: readonly string[],
): Promise<BinResult> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BUILT_BIN, ...args], { cwd, env: binEnv(env) })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('close', (code) => done({ code, stdout, stderr }))
  })
}

function binEnv(extra: Record<string, string>): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1' }
  for (const key of Object.keys(env)) if (/^CRASHLAB_(DIAGNOSER|FIXER)_/.test(key)) delete env[key]
  delete env.CRASHLAB_CONFIG
  return { ...env, ...extra }
}
