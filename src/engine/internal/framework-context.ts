/**
 * The context objects agent frameworks pass to a tool's function after its input, told apart by their
 * shape (no framework is imported): they carry the framework's own state (the message history, callbacks,
 * abort signals, approval maps), never the model's arguments, so `tool()` records neither them nor what
 * follows them.
 *
 * - the Vercel AI SDK: `execute(input, { toolCallId, messages, abortSignal, context, ... })`;
 * - LangChain.js: `tool(func)` calls `func(input, config)` with a `RunnableConfig` (`tags`, `metadata`,
 *   `recursionLimit`, `callbacks`, `configurable`, `signal`, `toolCall`, ...); `DynamicStructuredTool`
 *   calls `func(input, runManager, config)`;
 * - the OpenAI Agents SDK: `execute(input, runContext, details)`, a `RunContext` (`context`, `usage`,
 *   approval methods) and `{ toolCall, signal, ... }`;
 * - Mastra: `execute(input, context)`, with `requestContext`, `observe`, `agent: { toolCallId, messages }`
 *   or `workflow`, `mastra`, `writer`, `abortSignal`.
 */

/** What `splitFrameworkContext` found. */
export interface SplitCall {
  /** The arguments before the first framework context: the tool's real arguments. */
  args: unknown[]
  /** The model's tool-call id, when a context carried it. */
  callId?: string
  /** At least one argument was a framework context. */
  hadContext: boolean
}

/**
 * Splits a tool call's arguments into the real ones and the framework contexts that follow them. The
 * first context ends the real arguments (`undefined` placeholders just before it go too, as
 * `DynamicStructuredTool` passes no run manager without callbacks); the first argument is always real.
 *
 * @example
 * splitFrameworkContext([{ order_id: 'A17' }, { toolCallId: 'call_1', messages: [] }])
 * // { args: [{ order_id: 'A17' }], callId: 'call_1', hadContext: true }
 */
export function splitFrameworkContext(args: readonly unknown[]): SplitCall {
  let first = -1
  let callId: string | undefined
  for (let i = 1; i < args.length; i++) {
    if (!isFrameworkContext(args[i])) continue
    if (first < 0) first = i
    callId ??= callIdOf(args[i])
  }
  if (first < 0) return { args: [...args], hadContext: false }
  let end = first
  while (end > 1 && args[end - 1] === undefined) end--
  return { args: args.slice(0, end), ...(callId === undefined ? {} : { callId }), hadContext: true }
}

/** The model's tool-call id a framework context carries, if any. */
export function callIdOf(value: unknown): string | undefined {
  if (!isObject(value)) return undefined
  // The AI SDK's options (and Mastra's before it reorganizes them).
  if (nonEmpty(value.toolCallId)) return value.toolCallId
  // Mastra, inside an agent.
  const agent = value.agent
  if (isObject(agent) && nonEmpty(agent.toolCallId)) return agent.toolCallId
  const toolCall = value.toolCall
  if (isObject(toolCall)) {
    // The Agents SDK's details: a Responses-style function_call item.
    if (nonEmpty(toolCall.callId)) return toolCall.callId
    // LangChain's config, when the tool was invoked with the model's ToolCall.
    if (nonEmpty(toolCall.id)) return toolCall.id
  }
  return undefined
}

/** True for a context object of a framework this module knows. */
export function isFrameworkContext(value: unknown): boolean {
  if (!isObject(value)) return false
  return (
    isAiSdkOptions(value) ||
    isLangChainConfig(value) ||
    isLangChainRunManager(value) ||
    isAgentsRunContext(value) ||
    isAgentsDetails(value) ||
    isMastraContext(value)
  )
}

type Obj = Record<string | symbol, unknown>

function isObject(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function nonEmpty(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0
}

const isFunction = (value: unknown): boolean => typeof value === 'function'

/** `{ toolCallId, messages, abortSignal?, context?, experimental_sandbox? }` */
function isAiSdkOptions(value: Obj): boolean {
  return typeof value.toolCallId === 'string' && Array.isArray(value.messages)
}

/**
 * A `RunnableConfig` as `ensureConfig` makes it: `recursionLimit` with `tags` or `metadata` (always both),
 * or `callbacks` / `configurable`; or any config carrying the model's `toolCall`.
 */
function isLangChainConfig(value: Obj): boolean {
  if (
    typeof value.recursionLimit === 'number' &&
    (Array.isArray(value.tags) ||
      isObject(value.metadata) ||
      value.callbacks !== undefined ||
      isObject(value.configurable))
  )
    return true
  const toolCall = value.toolCall
  return (
    isObject(toolCall) &&
    typeof toolCall.name === 'string' &&
    isObject(toolCall.args) &&
    (toolCall.type === 'tool_call' || Array.isArray(value.tags) || value.callbacks !== undefined)
  )
}

/** A `CallbackManagerForToolRun`: `DynamicStructuredTool` passes it before the config. */
function isLangChainRunManager(value: Obj): boolean {
  return isFunction(value.getChild) && isFunction(value.handleToolEnd) && isFunction(value.handleToolError)
}

/** A `RunContext`: the run's `context`, its `usage`, and the approval methods. */
function isAgentsRunContext(value: Obj): boolean {
  return (
    'context' in value &&
    isObject(value.usage) &&
    isFunction(value.isToolApproved) &&
    isFunction(value.approveTool) &&
    isFunction(value.rejectTool)
  )
}

/** The Agents SDK's `details`: `{ toolCall: { type: 'function_call', callId, name, arguments }, signal? }`. */
function isAgentsDetails(value: Obj): boolean {
  const toolCall = value.toolCall
  return isObject(toolCall) && toolCall.type === 'function_call' && typeof toolCall.callId === 'string'
}

/**
 * Mastra's tool context: a `requestContext` (a map with `get`/`set`), `observe` (`span`/`log`), or the
 * `agent` / `workflow` part it builds for a tool run in an agent or a workflow step.
 */
function isMastraContext(value: Obj): boolean {
  const requestContext = value.requestContext
  if (isObject(requestContext) && isFunction(requestContext.get) && isFunction(requestContext.set))
    return true
  const observe = value.observe
  if (isObject(observe) && isFunction(observe.span) && isFunction(observe.log)) return true
  const agent = value.agent
  if (isObject(agent) && typeof agent.toolCallId === 'string' && Array.isArray(agent.messages)) return true
  const workflow = value.workflow
  return isObject(workflow) && typeof workflow.workflowId === 'string' && typeof workflow.runId === 'string'
}
