import type { JsonObject, JsonValue } from '../../case/schema/json.ts'
import type { NormalizedRequest, Params, ToolDefinition } from '../../case/schema/normalized.ts'
import type { ModelParamPatch, ToolDescriptionPatch, ToolSchemaPatch } from '../patch-schema.ts'
import { describeAnchor, editText } from './edit-text.ts'

type Miss = string | null

function findTool(request: NormalizedRequest, name: string): ToolDefinition | string {
  const tool = request.tools.find((t) => t.name === name)
  if (tool) return tool
  const names = request.tools.map((t) => t.name).join(', ') || 'none'
  return `no tool named ${JSON.stringify(name)} (tools: ${names})`
}

export function applyToolDescription(request: NormalizedRequest, patch: ToolDescriptionPatch): Miss {
  const tool = findTool(request, patch.tool)
  if (typeof tool === 'string') return tool
  const next = editText(tool.description ?? '', patch)
  if (next === null) return `the description of ${patch.tool} does not contain ${describeAnchor(patch)}`
  if (next === '') delete tool.description
  else tool.description = next
  return null
}

export function applyToolSchema(request: NormalizedRequest, patch: ToolSchemaPatch): Miss {
  const tool = findTool(request, patch.tool)
  if (typeof tool === 'string') return tool
  tool.parameters =
    patch.op === 'replace'
      ? structuredClone(patch.parameters)
      : (mergePatch(tool.parameters, patch.parameters) as JsonObject)
  return null
}

/** RFC 7386 JSON Merge Patch: objects merge key by key, `null` deletes, anything else replaces. */
export function mergePatch(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return structuredClone(patch)
  const out: JsonObject =
    typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...target } : {}
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key]
    else out[key] = mergePatch(out[key], value)
  }
  return out
}

const PARAM_KEYS = [
  'temperature',
  'topP',
  'maxTokens',
  'stop',
  'seed',
  'toolChoice',
  'responseFormat',
] as const

export function applyModelParams(request: NormalizedRequest, patch: ModelParamPatch): Miss {
  if (patch.model !== undefined) request.model = patch.model
  const changes = patch.params
  if (!changes) return null
  const params: Record<string, unknown> = request.params
  for (const key of PARAM_KEYS) {
    const value = changes[key]
    if (value === null) delete params[key]
    else if (value !== undefined) params[key] = structuredClone(value)
  }
  if (changes.extra) {
    const extra = mergePatch(request.params.extra ?? {}, changes.extra) as NonNullable<Params['extra']>
    if (Object.keys(extra).length === 0) delete request.params.extra
    else request.params.extra = extra
  }
  return null
}
