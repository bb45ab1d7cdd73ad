/**
 * Every error crashlab raises on purpose is a `CrashlabError`: a stable `code` to branch on, a message
 * that names the thing and the next step, and the original `cause` when there is one.
 */

/** The stable codes. They are part of the public API: never renamed, only added. */
export const ERROR_CODES = [
  // cassettes
  'E_CASSETTE_MALFORMED',
  'E_CASSETTE_VERSION',
  'E_CASSETTE_TOO_LARGE',
  'E_CASSETTE_INVALID',
  'E_CASSETTE_NOT_FOUND',
  'E_WRITE_FAILED',
  // AgentCase 0.1
  'E_AGENTCASE_TOO_LARGE',
  'E_AGENTCASE_ENCODING',
  'E_AGENTCASE_MALFORMED',
  'E_AGENTCASE_NOT_OBJECT',
  'E_AGENTCASE_FORMAT',
  'E_AGENTCASE_VERSION',
  'E_AGENTCASE_INVALID',
  'E_AGENTCASE_DUPLICATE_EVENT_ID',
  'E_AGENTCASE_SEQUENCE',
  'E_AGENTCASE_PARENT_MISSING',
  'E_AGENTCASE_PARENT_ORDER',
  'E_AGENTCASE_REDACTION',
  'E_AGENTCASE_REPLAY',
  'E_AGENTCASE_PAYLOAD',
  // redaction
  'E_REDACTION_RULE',
  // providers
  'E_PROVIDER_UNKNOWN',
  'E_MEDIA_UNWRITABLE',
  // input files of unknown kind
  'E_FILE_UNKNOWN',
  'E_FILE_NOT_FOUND',
  // the scripted provider (crashlab/testing)
  'E_SCRIPT_INVALID',
  'E_SCRIPT_EXHAUSTED',
  'E_SCRIPT_POLICY',
  'E_SCRIPT_REQUEST',
  // layered diff and regression
  'E_DIFF_OPTIONS',
  'E_REGRESSION',
  // outcome oracles (src/checks)
  'E_ORACLE_ERROR',
  'E_ORACLE_DUPLICATE',
  'E_ORACLE_INVALID',
  // the engine: record and replay (src/engine)
  'E_DIVERGENCE',
  'E_REPLAY_MISSING',
  'E_REPLAY_UNUSED',
  'E_CAPTURE',
  // the Vitest plugin and fixtures (plugin/, fixtures/)
  'E_CASSETTE_MISSING',
  'E_RECORD_MODE',
  'E_AGENT_RUN_TWICE',
  'E_NO_TEST_SESSION',
  'E_ORACLE_FAILED',
  // the Vitest matchers (matchers/): a received value or option they cannot work with
  'E_MATCHER_USAGE',
  // the MSW interceptor (src/interceptor)
  'E_UNHANDLED_HOST',
  'E_INTERCEPTOR_CONFLICT',
  // the project config file (src/config): it does not load, or a key is wrong
  'E_CONFIG_LOAD',
  'E_CONFIG_INVALID',
  // a run stopped by Session.halt (the circuit breaker of src/checks)
  'E_CIRCUIT_OPEN',
  // the CLI: an option or argument it cannot use
  'E_CLI_USAGE',
  // explicit capture and mock replay (src/agentcase-capture)
  'E_CAPTURE_USAGE',
  'E_MOCK_SOURCE',
  'E_MOCK_MISSING',
  'E_MOCK_MISMATCH',
  'E_MOCK_EXTRA',
  'E_MOCK_UNCONSUMED',
  // the run store (src/store): a ref that names no run, or several; an index that cannot be read
  'E_RUN_NOT_FOUND',
  'E_RUN_AMBIGUOUS',
  'E_STORE_CORRUPT',
  // replaying a stored run (src/rerun): no entry point to start again, or one that cannot be loaded
  'E_REPLAY_NO_ENTRY',
  'E_REPLAY_ENTRY',
  // typed patches (src/patches): a patch that does not parse, or whose target is not in the request or run
  'E_PATCH_INVALID',
  'E_PATCH_TARGET',
  // diagnose (src/diagnose): no model configured, or the diagnoser's call failed
  'E_DIAGNOSE_CONFIG',
  'E_DIAGNOSE_CALL',
  // forks (src/fork): a side-effect tool refused live, an entry point a fork cannot start, a bad fork step
  'E_FORK_BLOCKED',
  'E_FORK_ENTRY',
  'E_FORK_STEP',
  // fixes (src/fix): no diagnosis to fix, no fixer model configured, or the fixer's call failed
  'E_FIX_NO_DIAGNOSIS',
  'E_FIX_CONFIG',
  'E_FIX_CALL',
  'E_VERIFY_FIX',
  'E_VERIFY_STEP',
  'E_VERIFY_REGRESS',
  // a replay's connection refused at the socket (src/interceptor): a client crashlab's HTTP interception missed
  'E_REPLAY_CONNECTION',
  // the run store (src/store): a folder that cannot be used (not a folder, no permission); a write to a store that can only be read
  'E_STORE_ACCESS',
  'E_STORE_READ_ONLY',
  // export-test (src/rerun): a run whose agent cannot be run again, so no test that re-runs it can be written
  'E_EXPORT_NO_AGENT',
  // crash tests (src/crash): a fault that does not parse (unknown kind, bad parameter)
  'E_FAULT_INVALID',
  // crash tests in Vitest (fixtures/): an agent that did not survive a fault
  'E_CRASH_FAILED',
  // MCP servers over stdio (src/mcp): a request of a replayed server that the recording does not hold
  'E_MCP_REPLAY_MISSING',
  // OpenTelemetry traces (src/otel): a file that is not OTLP JSON traces
  'E_OTLP_MALFORMED',
  // a replay of a run imported from a trace (src/engine) that reached a step whose content the trace did not capture
  'E_REPLAY_INCOMPLETE',
  // OpenTelemetry traces out (src/otel): an OTLP/HTTP endpoint that cannot be reached or refused the export
  'E_OTLP_EXPORT',
  // the OTLP/HTTP receiver (src/otel): it cannot listen where it was told to
  'E_OTLP_RECEIVE',
] as const

export type ErrorCode = (typeof ERROR_CODES)[number]

/** One problem found by validation: where it is (a JSON path such as `$.run.steps[3].type`) and what. */
export interface ValidationIssue {
  code: string
  path: string
  message: string
}

export interface CrashlabErrorOptions {
  cause?: unknown
  /** For validation errors: every failing path, in document order. */
  issues?: ValidationIssue[]
  /** The file, test or step the error is about. */
  subject?: string
}

/**
 * The one base class of crashlab's errors.
 *
 * @example
 * try { await loadCassette(path) } catch (err) {
 *   if (err instanceof CrashlabError && err.code === 'E_CASSETTE_VERSION') console.log(err.message)
 * }
 */
export class CrashlabError extends Error {
  override readonly name: string = 'CrashlabError'
  readonly code: ErrorCode
  readonly issues: ValidationIssue[]
  readonly subject: string | undefined

  constructor(code: ErrorCode, message: string, options: CrashlabErrorOptions = {}) {
    super(message.startsWith('[crashlab]') ? message : `[crashlab] ${message}`, { cause: options.cause })
    this.code = code
    this.issues = options.issues ?? []
    this.subject = options.subject
  }
}

/** True when `err` is a CrashlabError, optionally with the given code. */
export function isCrashlabError(err: unknown, code?: ErrorCode): err is CrashlabError {
  return err instanceof CrashlabError && (code === undefined || err.code === code)
}

/** Renders validation issues one per line, `  ✖ message\n    → at path`, in the style of zod's prettifyError. */
export function formatIssues(issues: readonly ValidationIssue[], limit = 20): string {
  const shown = issues.slice(0, limit).map((i) => `  ✖ ${i.message}\n    → at ${i.path}`)
  if (issues.length > limit) shown.push(`  … and ${issues.length - limit} more`)
  return shown.join('\n')
}
