/**
 * The Run and its cassette: the zod model every other piece shares, canonical writing and strict
 * loading, and AgentCase 0.1 interop.
 */
export * from './agentcase/index.ts'
export { writeFileAtomic } from './atomic-write.ts'
export { attachBinary, binaryOf, collectBinaries, createBodyFile } from './binary-bodies.ts'
export { type CanonicalOptions, canonicalStringify, compareCodePoints } from './canonical-json.ts'
export { cassetteFilesDir, loadCassetteBinaries } from './cassette-binaries.ts'
export { type LoadCassetteOptions, loadCassette } from './cassette-load.ts'
export { DEFAULT_MAX_CASSETTE_BYTES, type ParseCassetteOptions, parseCassette } from './cassette-parse.ts'
export { serializeCassette } from './cassette-serialize.ts'
export { type WriteCassetteOptions, writeCassette } from './cassette-write.ts'
export { type CreateRunOptions, createRun, newRunId } from './create-run.ts'
export {
  declaresSideEffects,
  isMcpHttpStep,
  isMcpToolStep,
  type McpHttpStep,
  mcpResultValue,
} from './mcp-steps.ts'
export * from './schema/index.ts'
