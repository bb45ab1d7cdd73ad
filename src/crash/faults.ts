import type { z } from 'zod'
import { toValidationIssues } from '../case/validation-issues.ts'
import { CrashlabError, formatIssues, type ValidationIssue } from '../errors.ts'
import { lazySchema, zod } from '../lazy-zod.ts'

/**
 * Faults: what a crash test answers at a chosen step instead of the recording. Model faults stand for
 * a model call going wrong on the wire (an error status, a dropped connection, a cut stream, an answer
 * the agent did not expect); tool faults stand for a `tool()`-wrapped tool failing; MCP faults stand for
an MCP server's `tools/call` going wrong (an error result, a failed request, no answer). A fault is plain
 * JSON, so a test, a config file and a CLI flag all carry the same value. Every schema is strict: a
 * misspelt key is an error that names it, not a fault that silently uses its default.
 */

const DOCS = 'docs/crash-tests.md lists every kind'

const bare = <K extends string>(kind: K) => lazySchema(() => zod.strictObject({ kind: zod.literal(kind) }))

/**
 * HTTP 429 with a `retry-after` header (seconds; 0 when left out), the body each API sends for it.
 *
 * @example
 * RateLimitFaultSchema.parse({ kind: 'rate_limit', retryAfterSeconds: 2 })
 */
export const RateLimitFaultSchema = lazySchema(() =>
  zod.strictObject({
    kind: zod.literal('rate_limit'),
    retryAfterSeconds: zod.number().int().nonnegative().optional(),
  }),
)

/** HTTP 500 with the API's JSON error body. @example ServerErrorFaultSchema.parse({ kind: 'server_error' }) */
export const ServerErrorFaultSchema = bare('server_error')

/**
 * A gateway's HTML error page (`content-type: text/html`) with status 502 (the default) or 503.
 *
 * @example
 * GatewayHtmlFaultSchema.parse({ kind: 'gateway_html', status: 503 })
 */
export const GatewayHtmlFaultSchema = lazySchema(() =>
  zod.strictObject({
    kind: zod.literal('gateway_html'),
    status: zod.literal([502, 503]).optional(),
  }),
)

/** No answer: the client's `fetch` rejects at once with a timeout. @example TimeoutFaultSchema.parse({ kind: 'timeout' }) */
export const TimeoutFaultSchema = bare('timeout')

/** The connection drops before any answer. @example ConnectionResetFaultSchema.parse({ kind: 'connection_reset' }) */
export const ConnectionResetFaultSchema = bare('connection_reset')

/**
 * The recorded answer, cut by a network error after `afterChunks` chunks (1 when left out): SSE events
 * for a streamed call, 64-byte pieces of the JSON body for a plain one.
 *
 * @example
 * StreamCutFaultSchema.parse({ kind: 'stream_cut', afterChunks: 3 })
 */
export const StreamCutFaultSchema = lazySchema(() =>
  zod.strictObject({
    kind: zod.literal('stream_cut'),
    afterChunks: zod.number().int().nonnegative().optional(),
  }),
)

/** Status 200 with a body (or an SSE event) that is not JSON. @example MalformedJsonFaultSchema.parse({ kind: 'malformed_json' }) */
export const MalformedJsonFaultSchema = bare('malformed_json')
/** The model refuses, in the API's refusal shape. @example RefusalFaultSchema.parse({ kind: 'refusal' }) */
export const RefusalFaultSchema = bare('refusal')
/** The answer is stopped by the provider's content filter. @example ContentFilterFaultSchema.parse({ kind: 'content_filter' }) */
export const ContentFilterFaultSchema = bare('content_filter')
/** The answer stops at the output token limit. @example LengthCutoffFaultSchema.parse({ kind: 'length_cutoff' }) */
export const LengthCutoffFaultSchema = bare('length_cutoff')

/**
 * The tool throws an `Error` with `message` (a fixed one when left out).
 *
 * @example
 * ToolThrowFaultSchema.parse({ kind: 'tool_throw', message: 'ECONNREFUSED orders-db:5432' })
 */
export const ToolThrowFaultSchema = lazySchema(() =>
  zod.strictObject({ kind: zod.literal('tool_throw'), message: zod.string().min(1).optional() }),
)
/** The tool throws a `ToolTimeoutError`. @example ToolTimeoutFaultSchema.parse({ kind: 'tool_timeout' }) */
export const ToolTimeoutFaultSchema = bare('tool_timeout')
/** The tool returns a gateway's HTML error page as its result. @example ToolHtmlErrorFaultSchema.parse({ kind: 'tool_html_error' }) */
export const ToolHtmlErrorFaultSchema = bare('tool_html_error')
/** The tool returns an empty result. @example ToolEmptyFaultSchema.parse({ kind: 'tool_empty' }) */
export const ToolEmptyFaultSchema = bare('tool_empty')
/** The tool returns the recorded result with its shape changed. @example ToolShapeDriftFaultSchema.parse({ kind: 'tool_shape_drift' }) */
export const ToolShapeDriftFaultSchema = bare('tool_shape_drift')

/**
 * The MCP call answers a result with `isError: true` whose text content is `message` (a fixed one
 * naming the tool when left out).
 *
 * @example
 * McpErrorResultFaultSchema.parse({ kind: 'mcp_error_result', message: 'orders-db is down' })
 */
export const McpErrorResultFaultSchema = lazySchema(() =>
  zod.strictObject({ kind: zod.literal('mcp_error_result'), message: zod.string().min(1).optional() }),
)
/** The MCP call's HTTP request fails: the connection is reset. @example McpTransportErrorFaultSchema.parse({ kind: 'mcp_transport_error' }) */
export const McpTransportErrorFaultSchema = bare('mcp_transport_error')
/** No answer to the MCP call: the client's `fetch` rejects at once with a timeout. @example McpTimeoutFaultSchema.parse({ kind: 'mcp_timeout' }) */
export const McpTimeoutFaultSchema = bare('mcp_timeout')

/** Every model fault kind, in the stable order of matrices and listings. */
export const MODEL_FAULT_KINDS = [
  'rate_limit',
  'server_error',
  'gateway_html',
  'timeout',
  'connection_reset',
  'stream_cut',
  'malformed_json',
  'refusal',
  'content_filter',
  'length_cutoff',
] as const

/** Every tool fault kind, in the stable order of matrices and listings. */
export const TOOL_FAULT_KINDS = [
  'tool_throw',
  'tool_timeout',
  'tool_html_error',
  'tool_empty',
  'tool_shape_drift',
] as const

/** Every MCP tool fault kind, in the stable order of matrices and listings. */
export const MCP_FAULT_KINDS = ['mcp_error_result', 'mcp_transport_error', 'mcp_timeout'] as const

const ALL_KINDS: readonly string[] = [...MODEL_FAULT_KINDS, ...TOOL_FAULT_KINDS, ...MCP_FAULT_KINDS]

/**
 * Any fault, as a test, a config file or the CLI gives it.
 *
 * @example
 * FaultSchema.parse({ kind: 'gateway_html', status: 503 })
 */
export const FaultSchema = lazySchema(() =>
  zod.discriminatedUnion(
    'kind',
    [
      RateLimitFaultSchema,
      ServerErrorFaultSchema,
      GatewayHtmlFaultSchema,
      TimeoutFaultSchema,
      ConnectionResetFaultSchema,
      StreamCutFaultSchema,
      MalformedJsonFaultSchema,
      RefusalFaultSchema,
      ContentFilterFaultSchema,
      LengthCutoffFaultSchema,
      ToolThrowFaultSchema,
      ToolTimeoutFaultSchema,
      ToolHtmlErrorFaultSchema,
      ToolEmptyFaultSchema,
      ToolShapeDriftFaultSchema,
      McpErrorResultFaultSchema,
      McpTransportErrorFaultSchema,
      McpTimeoutFaultSchema,
    ],
    { error: () => `unknown fault kind: expected one of ${ALL_KINDS.join(', ')}` },
  ),
)

/** @example const fault: Fault = { kind: 'stream_cut', afterChunks: 2 } */
export type Fault = z.infer<typeof FaultSchema>
/** @example const kind: FaultKind = 'rate_limit' */
export type FaultKind = Fault['kind']
/** @example const fault: ModelFault = { kind: 'timeout' } */
export type ModelFault = Extract<Fault, { kind: (typeof MODEL_FAULT_KINDS)[number] }>
/** @example const fault: ToolFault = { kind: 'tool_empty' } */
export type ToolFault = Extract<Fault, { kind: (typeof TOOL_FAULT_KINDS)[number] }>
/** @example const fault: McpFault = { kind: 'mcp_timeout' } */
export type McpFault = Extract<Fault, { kind: (typeof MCP_FAULT_KINDS)[number] }>

/**
 * What crashlab knows about a fault kind.
 *
 * @example
 * const info: FaultKindInfo = FAULT_KINDS.stream_cut // { target: 'model', … }
 */
export interface FaultKindInfo {
  /** What the fault does, for listings and help text. */
  summary: string
  /**
   * Where it is injected: a model call (the HTTP answer), a `tool()`-wrapped tool call, or an MCP
   * server's `tools/call` (a `tool` step with `mcp`).
   */
  target: 'model' | 'tool' | 'mcp'
}

/**
 * Every fault kind and what it is.
 *
 * @example
 * Object.entries(FAULT_KINDS).filter(([, k]) => k.target === 'tool').map(([kind]) => kind)
 */
export const FAULT_KINDS: Readonly<Record<FaultKind, FaultKindInfo>> = {
  rate_limit: { summary: 'HTTP 429 with a retry-after header', target: 'model' },
  server_error: { summary: "HTTP 500 with the API's JSON error body", target: 'model' },
  gateway_html: { summary: "a gateway's HTML error page, status 502 or 503", target: 'model' },
  timeout: { summary: "no answer: the client's own timeout error, at once", target: 'model' },
  connection_reset: { summary: 'the connection drops before any answer', target: 'model' },
  stream_cut: { summary: 'the recorded answer cut by a network error after N chunks', target: 'model' },
  malformed_json: { summary: 'status 200 with a body or SSE event that is not JSON', target: 'model' },
  refusal: { summary: "the model refuses, in the API's refusal shape", target: 'model' },
  content_filter: { summary: 'the answer stopped by the content filter', target: 'model' },
  length_cutoff: { summary: 'the answer stopped at the output token limit', target: 'model' },
  tool_throw: { summary: 'the tool throws an Error', target: 'tool' },
  tool_timeout: { summary: 'the tool throws a ToolTimeoutError', target: 'tool' },
  tool_html_error: { summary: "the tool returns a gateway's HTML error page", target: 'tool' },
  tool_empty: { summary: 'the tool returns an empty result', target: 'tool' },
  tool_shape_drift: { summary: 'the tool returns the recorded result with its keys renamed', target: 'tool' },
  mcp_error_result: { summary: 'the MCP call answers a result with isError: true', target: 'mcp' },
  mcp_transport_error: { summary: "the MCP call's HTTP request fails: connection reset", target: 'mcp' },
  mcp_timeout: { summary: "no answer to the MCP call: the client's timeout error, at once", target: 'mcp' },
}

/**
 * One instance of each model fault, parameters at their defaults, in `MODEL_FAULT_KINDS` order: the
 * columns of a full crash matrix.
 *
 * @example
 * ALL_MODEL_FAULTS.map(faultLabel) // ['429 (retry-after 0s)', '500', 'HTML 502', …]
 */
export const ALL_MODEL_FAULTS: readonly ModelFault[] = [
  { kind: 'rate_limit', retryAfterSeconds: 0 },
  { kind: 'server_error' },
  { kind: 'gateway_html', status: 502 },
  { kind: 'timeout' },
  { kind: 'connection_reset' },
  { kind: 'stream_cut', afterChunks: 1 },
  { kind: 'malformed_json' },
  { kind: 'refusal' },
  { kind: 'content_filter' },
  { kind: 'length_cutoff' },
]

/**
 * One instance of each tool fault, in `TOOL_FAULT_KINDS` order.
 *
 * @example
 * for (const fault of ALL_TOOL_FAULTS) toolFaultOutcome(fault, { tool: 'get_order', recordedResult })
 */
export const ALL_TOOL_FAULTS: readonly ToolFault[] = [
  { kind: 'tool_throw' },
  { kind: 'tool_timeout' },
  { kind: 'tool_html_error' },
  { kind: 'tool_empty' },
  { kind: 'tool_shape_drift' },
]

/**
 * One instance of each MCP tool fault, in `MCP_FAULT_KINDS` order.
 *
 * @example
 * ALL_MCP_FAULTS.map(faultLabel) // ['MCP error result', 'MCP transport error', 'MCP timeout']
 */
export const ALL_MCP_FAULTS: readonly McpFault[] = [
  { kind: 'mcp_error_result' },
  { kind: 'mcp_transport_error' },
  { kind: 'mcp_timeout' },
]

/**
 * True when the fault is answered in place of a model call (false: in place of a tool or MCP call).
 *
 * @example
 * isModelFault({ kind: 'timeout' }) // true
 */
export function isModelFault(fault: Fault): fault is ModelFault {
  return FAULT_KINDS[fault.kind].target === 'model'
}

/**
 * True when the fault is answered in place of an MCP server's `tools/call`.
 *
 * @example
 * isMcpFault({ kind: 'mcp_timeout' }) // true
 */
export function isMcpFault(fault: Fault): fault is McpFault {
  return FAULT_KINDS[fault.kind].target === 'mcp'
}

/**
 * Reads a fault from plain data (a test's option, a config value, parsed JSON). Throws
 * `E_FAULT_INVALID` naming every bad field (`$.status`) and, for an unknown kind, the valid ones.
 *
 * @example
 * parseFault({ kind: 'gateway_html', status: 503 }) // { kind: 'gateway_html', status: 503 }
 * parseFault({ kind: 'rate_limt' })                // throws: unknown fault kind: expected one of rate_limit, …
 */
export function parseFault(value: unknown, source = 'the value'): Fault {
  const result = FaultSchema.safeParse(value)
  if (result.success) return result.data
  const issues = toValidationIssues(result.error.issues, {
    unknownKey: (key) =>
      `unknown key ${JSON.stringify(key)}: faults are strict, so a misspelt key is an error`,
  })
  throw invalidFault(source, issues)
}

/** The parameter a `kind:arg` item of a fault list sets, and how its text is read. */
const LIST_PARAMS: Partial<Record<FaultKind, { key: string; numeric: boolean }>> = {
  rate_limit: { key: 'retryAfterSeconds', numeric: true },
  gateway_html: { key: 'status', numeric: true },
  stream_cut: { key: 'afterChunks', numeric: true },
  tool_throw: { key: 'message', numeric: false },
  mcp_error_result: { key: 'message', numeric: false },
}

/**
 * Reads the comma-separated fault list of a CLI flag. `kind:arg` sets the kind's one parameter:
 * `rate_limit:N` (retry-after seconds), `gateway_html:502|503`, `stream_cut:N` (chunks before the cut),
 * `tool_throw:message` and `mcp_error_result:message` (no commas). Throws `E_FAULT_INVALID` naming the item and the valid kinds.
 *
 * @example
 * parseFaultList('rate_limit,gateway_html:503,stream_cut:2,tool_throw')
 * // [{ kind: 'rate_limit' }, { kind: 'gateway_html', status: 503 }, { kind: 'stream_cut', afterChunks: 2 }, { kind: 'tool_throw' }]
 */
export function parseFaultList(text: string): Fault[] {
  const items = text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
  if (items.length === 0) {
    throw new CrashlabError(
      'E_FAULT_INVALID',
      `no faults in ${JSON.stringify(text)}: give a comma-separated list of ${ALL_KINDS.join(', ')}`,
      { subject: text },
    )
  }
  return items.map((item) => parseItem(item))
}

function parseItem(item: string): Fault {
  const colon = item.indexOf(':')
  const kind = colon === -1 ? item : item.slice(0, colon).trim()
  const arg = colon === -1 ? undefined : item.slice(colon + 1).trim()
  const source = `fault ${JSON.stringify(item)}`
  if (!(ALL_KINDS as readonly string[]).includes(kind)) {
    throw new CrashlabError(
      'E_FAULT_INVALID',
      `${source}: unknown fault kind ${JSON.stringify(kind)}; expected one of ${ALL_KINDS.join(', ')}. ${DOCS}.`,
      { subject: item },
    )
  }
  if (arg === undefined) return parseFault({ kind }, source)
  const param = LIST_PARAMS[kind as FaultKind]
  if (!param) {
    const takes = Object.keys(LIST_PARAMS).join(', ')
    throw new CrashlabError(
      'E_FAULT_INVALID',
      `${source}: ${kind} takes no ":" argument; write it as ${kind}. Only ${takes} take one. ${DOCS}.`,
      { subject: item },
    )
  }
  if (!param.numeric) return parseFault({ kind, [param.key]: arg }, source)
  const n = arg === '' ? Number.NaN : Number(arg)
  if (!Number.isInteger(n)) {
    const issue = {
      code: 'invalid_type',
      path: `$.${param.key}`,
      message: `expected a whole number, got "${arg}"`,
    }
    throw invalidFault(source, [issue])
  }
  return parseFault({ kind, [param.key]: n }, source)
}

function invalidFault(source: string, issues: ValidationIssue[]): CrashlabError {
  return new CrashlabError(
    'E_FAULT_INVALID',
    `${source} is not a valid fault:\n${formatIssues(issues)}\nFix the fields named above; ${DOCS}.`,
    { issues, subject: source },
  )
}

/**
 * A short label for a fault, for a matrix column header or a test name.
 *
 * @example
 * faultLabel({ kind: 'rate_limit' })                 // '429 (retry-after 0s)'
 * faultLabel({ kind: 'gateway_html', status: 503 })  // 'HTML 503'
 * faultLabel({ kind: 'stream_cut', afterChunks: 2 }) // 'stream cut @2'
 */
export function faultLabel(fault: Fault): string {
  switch (fault.kind) {
    case 'rate_limit':
      return `429 (retry-after ${fault.retryAfterSeconds ?? 0}s)`
    case 'server_error':
      return '500'
    case 'gateway_html':
      return `HTML ${fault.status ?? 502}`
    case 'timeout':
      return 'timeout'
    case 'connection_reset':
      return 'connection reset'
    case 'stream_cut':
      return `stream cut @${fault.afterChunks ?? 1}`
    case 'malformed_json':
      return 'malformed JSON'
    case 'refusal':
      return 'refusal'
    case 'content_filter':
      return 'content filter'
    case 'length_cutoff':
      return 'length cutoff'
    case 'tool_throw':
      return fault.message === undefined ? 'tool throws' : `tool throws "${clip(fault.message, 24)}"`
    case 'tool_timeout':
      return 'tool timeout'
    case 'tool_html_error':
      return 'tool HTML error'
    case 'tool_empty':
      return 'tool empty'
    case 'tool_shape_drift':
      return 'tool shape drift'
    case 'mcp_error_result':
      return fault.message === undefined
        ? 'MCP error result'
        : `MCP error result "${clip(fault.message, 24)}"`
    case 'mcp_transport_error':
      return 'MCP transport error'
    case 'mcp_timeout':
      return 'MCP timeout'
  }
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`
}
