import type { JsonValue } from '../../case/schema/json.ts'
import type {
  Message,
  NormalizedRequest,
  NormalizedResponse,
  Part,
  ToolDefinition,
} from '../../case/schema/normalized.ts'
import type { StepError } from '../../case/schema/step.ts'
import type { OtlpSpan } from '../read-otlp.ts'
import type { Lost } from './messages.ts'

/** The conventions an import reads. */
export type Convention = 'gen_ai' | 'ai-sdk' | 'openinference' | 'openai-agents'

/** A model call read from a span, whatever convention wrote it. */
export interface FoundInference {
  kind: 'llm'
  span: OtlpSpan
  convention: Convention
  provider: string
  operation: string
  request: NormalizedRequest
  /** The span held the request's messages (content capture is opt-in in most instrumentations). */
  inputCaptured: boolean
  response: NormalizedResponse
  outputCaptured: boolean
  lost: Lost
}

/** A tool execution read from a span. */
export interface FoundTool {
  kind: 'tool'
  span: OtlpSpan
  convention: Convention
  name: string
  callId: string | undefined
  /** Undefined when the span did not hold the arguments. */
  args: JsonValue | undefined
  result: JsonValue | undefined
  error: StepError | null
}

/** An agent invocation: it names the run. */
export interface FoundAgent {
  kind: 'agent'
  span: OtlpSpan
  convention: Convention
  name: string | undefined
}

export type FoundSpan = FoundInference | FoundTool | FoundAgent

/** System messages of a conversation move to the request's `system` parts, as every adapter does. */
export function splitSystem(messages: Message[]): { system: Part[]; messages: Message[] } {
  const system = messages.filter((m) => m.role === 'system').flatMap((m) => m.parts)
  return { system, messages: messages.filter((m) => m.role !== 'system') }
}

/** A span's error, when its status says it failed. */
export function spanError(span: OtlpSpan, fallbackName: string): StepError | null {
  if (span.status.code !== 2) return null
  const type = span.attributes['error.type']
  const name = typeof type === 'string' && type !== '' ? type : fallbackName
  return { name, message: span.status.message || name }
}

/** Tool definitions in the shapes instrumentations write: `{ name, parameters }` or `{ function: { ... } }`. */
export function toolDefinitions(value: JsonValue | undefined): ToolDefinition[] {
  const list = Array.isArray(value) ? value : []
  const out: ToolDefinition[] = []
  for (const item of list) {
    const raw = typeof item === 'string' ? safeParse(item) : item
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) continue
    const fn = (
      raw.function && typeof raw.function === 'object' && !Array.isArray(raw.function) ? raw.function : raw
    ) as Record<string, JsonValue>
    if (typeof fn.name !== 'string') continue
    const params = fn.parameters ?? fn.inputSchema ?? fn.input_schema
    out.push({
      name: fn.name,
      ...(typeof fn.description === 'string' && { description: fn.description }),
      parameters:
        params !== null && typeof params === 'object' && !Array.isArray(params) ? params : { type: 'object' },
    })
  }
  return out
}

function safeParse(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue
  } catch {
    return null
  }
}
