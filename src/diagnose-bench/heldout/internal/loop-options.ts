import type { ToolDef } from '../../types.ts'

/** A tool function of an agent: takes the parsed arguments, returns data or throws. */
export type ToolFn = (args: Record<string, unknown>) => unknown

/** What every held-out tool loop takes, whatever its wire API. */
export interface LoopOptions {
  baseUrl: string
  fetch: typeof fetch
  system: string
  input: string
  tools: readonly ToolDef[]
  run: Record<string, ToolFn>
  model?: string
  /** Model calls that answered (retries not counted) before the agent gives up. Default 8. */
  maxSteps?: number
  /** The answer's token limit, sent with every call. Default 512. */
  maxTokens?: number
}
