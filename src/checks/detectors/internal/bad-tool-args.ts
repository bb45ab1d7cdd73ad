import { createRequire } from 'node:module'
import type { Ajv, ValidateFunction } from 'ajv'
import type { JsonObject } from '../../../case/schema/json.ts'
import type { ToolDefinition } from '../../../case/schema/normalized.ts'
import type { Detector, StepContext } from './detector.ts'
import { headQuote } from './quote.ts'
import { jsonText, type TrackedCall } from './tool-call-tracker.ts'

/**
 * `bad_tool_args` (`error`): a call whose arguments are not JSON, or do not validate against the JSON
 * Schema of the tool as the request declared it (`tools[].parameters`). A model call is checked against
 * the tools of the request it answered; a wrapped call that no model call announced, against the tools
 * of the newest request that declared any. A tool that no request declared is not checked. Schemas are
 * compiled once by ajv, cached by their text.
 */

const require = createRequire(import.meta.url)
let engine: Ajv | undefined

// One validator for the process, loaded on the first schema (ajv is 60-odd modules: a process that
// checks no tool call never loads it). Tool schemas come from many dialects and tools: unknown keywords
// and formats are ignored instead of refusing the schema; every error is listed, for the message.
function ajv(): Ajv {
  if (engine === undefined) {
    const { Ajv } = require('ajv') as typeof import('ajv')
    engine = new Ajv({ strict: false, allErrors: true, logger: false, validateFormats: false })
  }
  return engine
}
const compiled = new Map<string, ValidateFunction | null>()
const MAX_CACHED = 512

/**
 * The validator of a tool's parameters; null when ajv cannot compile the schema even after the usual
 * repairs (its `$schema` dropped, Gemini's upper-case OpenAPI types lower-cased).
 *
 * @example
 * validatorFor({ type: 'object', required: ['order_id'] })?.({}) // false
 */
export function validatorFor(schema: JsonObject): ValidateFunction | null {
  const text = jsonText(schema)
  const cached = compiled.get(text)
  if (cached !== undefined) return cached
  let validate: ValidateFunction | null = null
  for (const candidate of [withoutMetaSchema(schema), lowerCaseTypes(withoutMetaSchema(schema))]) {
    try {
      validate = ajv().compile(candidate)
      break
    } catch {
      // Next repair; a schema that never compiles is not checked (the run is not the schema's test).
    }
  }
  // Bounded: a long-lived process that checks many runs does not keep every schema it ever saw.
  if (compiled.size >= MAX_CACHED) {
    compiled.clear()
    ajv().removeSchema()
  }
  compiled.set(text, validate)
  return validate
}

/**
 * @example
 * const detector = badToolArgs()
 */
export function badToolArgs(): Detector {
  /** The newest request's tools, for wrapped calls that no model call announced (looked up on demand). */
  let newest: readonly ToolDefinition[] = []
  return {
    onStep(ctx: StepContext) {
      const tools = ctx.step.type === 'llm' ? ctx.step.request.normalized?.tools : undefined
      if (tools && tools.length > 0) newest = tools
    },
    onToolCall(call: TrackedCall, ctx: StepContext) {
      if (call.argsInvalid) {
        const quote = headQuote(call.argsText)
        ctx.log.open({
          kind: 'bad_tool_args',
          severity: 'error',
          steps: [call.step],
          message: `${call.name} was called with arguments that are not JSON`,
          evidence: quote.length > 0 ? [quote] : [],
        })
        return
      }
      const tools = call.source === 'model' ? call.tools : newest
      const tool = tools?.find((t) => t.name === call.name)
      if (!tool) return
      const validate = validatorFor(tool.parameters)
      if (!validate || validate(call.args)) return
      const errors = ajv().errorsText(validate.errors, { dataVar: 'args', separator: '; ' })
      ctx.log.open({
        kind: 'bad_tool_args',
        severity: 'error',
        steps: [call.step],
        message: `${call.name} was called with arguments its schema rejects: ${errors}`,
        evidence: [headQuote(call.argsText)],
      })
    },
  }
}

function withoutMetaSchema(schema: JsonObject): JsonObject {
  if (!('$schema' in schema)) return schema
  const { $schema: _ignored, ...rest } = schema
  return rest
}

/** Gemini's OpenAPI subset writes types in capitals (`OBJECT`); JSON Schema wants them in lower case. */
function lowerCaseTypes(value: JsonObject): JsonObject {
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk)
    if (typeof v !== 'object' || v === null) return v
    const out: Record<string, unknown> = {}
    for (const [k, x] of Object.entries(v))
      out[k] = k === 'type' && typeof x === 'string' ? x.toLowerCase() : walk(x)
    return out
  }
  return walk(value) as JsonObject
}
