/**
 * Recording an agent run outside a test runner: `record(name, fn, { input })` builds the same graded Run
 * as `agentCase` does in Vitest, and `startCapture({ name })` captures a run in a long-lived process;
 * both store it in the local run store (src/store) outside Vitest. It sits above the engine, the checks
 * and the store, and uses them.
 */
export { capture } from './capture.ts'
export { type InstalledInterceptor, installInterceptor } from './install-interceptor.ts'
export { type StoreOption, storeFor } from './internal/store-for.ts'
export { type Recording, type RecordOptions, record } from './record.ts'
export { type Capture, type StartCaptureOptions, startCapture } from './start-capture.ts'
