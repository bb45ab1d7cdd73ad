/**
 * Everything the components of `src/` export, for the Vitest side of the package (`plugin/`,
 * `matchers/`, `fixtures/`) and for the project's own tests. Not a public entry: `package.json`'s
 * `exports` does not list it, and nothing here is covered by semver. Users import `crashlab`
 * (`src/index.ts`), `crashlab/vitest`, `crashlab/tasks` or `crashlab/testing`.
 */
export * from './agentcase-capture/index.ts'
export * from './case/index.ts'
export * from './cassette-store/index.ts'
export * from './checks/index.ts'
export * from './config/index.ts'
export * from './cost/index.ts'
export * from './diagnose/index.ts'
export * from './diff/index.ts'
export * from './engine/index.ts'
export * from './errors.ts'
export * from './fix/index.ts'
export * from './fork/index.ts'
export * from './harness/index.ts'
export * from './interceptor/index.ts'
export * from './mcp/index.ts'
export * from './package-root.ts'
export * from './patches/index.ts'
export * from './production-capture/index.ts'
export * from './providers/index.ts'
export * from './record-modes/index.ts'
export * from './redact/index.ts'
export * from './redact-files/index.ts'
export * from './report/index.ts'
export * from './rerun/index.ts'
export * from './store/index.ts'
export * from './task-files/index.ts'
export * from './verify/index.ts'
export * from './version.ts'
