/**
 * Recording an agent run outside a test runner: `record(name, fn, { input })` builds the same graded Run
 * as `agentCase` does in Vitest. It sits above the engine and the checks, and uses both.
 */
export { type Recording, type RecordOptions, record } from './record.ts'
