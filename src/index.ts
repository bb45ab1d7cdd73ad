/**
 * crashlab's core API. It needs no Vitest: the CLI and production capture use it too.
 *
 * @example
 * import { createRun, writeCassette, loadCassette } from 'crashlab'
 * const run = createRun({ name: 'refund-bot', input: 'Refund my order A17' })
 * writeCassette('__cassettes__/refund.cassette.json', run)
 * loadCassette('__cassettes__/refund.cassette.json').run.name // 'refund-bot'
 */
export * from './agentcase-capture/index.ts'
export * from './case/index.ts'
export {
  type CassetteStore,
  cassetteFolderFor,
  cassettePathFor,
  fileCassetteStore,
  sanitizeTestName,
} from './cassette-store/index.ts'
export * from './checks/index.ts'
export * from './config/index.ts'
export * from './cost/index.ts'
export * from './diagnose/index.ts'
export * from './diff/index.ts'
export * from './engine/index.ts'
export {
  CrashlabError,
  type CrashlabErrorOptions,
  ERROR_CODES,
  type ErrorCode,
  formatIssues,
  isCrashlabError,
  type ValidationIssue,
} from './errors.ts'
export * from './fix/index.ts'
export * from './fork/index.ts'
export * from './interceptor/index.ts'
export * from './patches/index.ts'
export * from './production-capture/index.ts'
export * from './providers/index.ts'
export * from './redact/index.ts'
export * from './redact-files/index.ts'
export * from './report/index.ts'
export * from './rerun/index.ts'
export * from './store/index.ts'
export * from './task-files/index.ts'
export * from './verify/index.ts'
export { VERSION } from './version.ts'
