import { machine, release, type } from 'node:os'
import type { AgentCasePlatform, AgentCaseRuntime } from './schema.ts'

/**
 * The `runtime` and `platform` objects of a case written by this process. The format names a Python
 * version (its reference is Python); a TypeScript writer still fills it: `implementation` is `node`
 * and `python_version` holds the Node version (`process.versions.node`, e.g. `22.13.1`).
 */

/**
 * The runtime this process would write.
 *
 * @example
 * currentRuntime() // { implementation: 'node', python_version: '22.13.1' }
 */
export function currentRuntime(): AgentCaseRuntime {
  return { implementation: 'node', python_version: process.versions.node }
}

/**
 * The platform, named as Python's `platform.system()` / `release()` / `machine()` name it, so that cases
 * written by crashlab and by the reference read alike (`Windows`, not Node's `Windows_NT`).
 *
 * @example
 * currentPlatform() // { system: 'Linux', release: '6.8.0-45-generic', machine: 'x86_64' }
 */
export function currentPlatform(): AgentCasePlatform {
  const system = type()
  return { system: system === 'Windows_NT' ? 'Windows' : system, release: release(), machine: machine() }
}
