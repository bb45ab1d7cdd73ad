import { createRequire } from 'node:module'
import type { ValidateFunction } from 'ajv'
import type { JsonObject, JsonValue } from '../../case/schema/json.ts'
import { tool } from '../../engine/tool.ts'
import type { Rng } from '../../testing/create-rng.ts'
import { effectiveCalls } from '../agents/internal/effective-calls.ts'
import {
  failureOf,
  GATEWAY_502_HTML,
  lastToolResults,
  systemText,
  userText,
} from '../agents/internal/read-request.ts'
import type { ToolDef } from '../types.ts'
import { chatRetryLoop } from './internal/chat-retry-loop.ts'
import type { LoopOptions } from './internal/loop-options.ts'
import { messagesLoop } from './internal/messages-loop.ts'
import { responsesLoop } from './internal/responses-loop.ts'
import type { HeldoutAgent, HeldoutWorld, ToolFailure, Wire } from './types.ts'

/**
 * What a held-out agent is made of: its prompt and rule, its tools, the records its read tool finds,
 * and how its scripted model fills the write call from the record it read.
 *
 * @example
 * const spec: HeldoutAgentSpec = { name: 'pharmacy-refill', wire: 'openai-chat', … }
 */
export interface HeldoutAgentSpec {
  name: string
  domain: string
  wire: Wire
  systemPrompt: string
  policyLine: string
  inputs: readonly string[]
  tools: readonly ToolDef[]
  readTool: string
  writeTool: string
  /** The argument naming the record, in the read and the write tool alike. */
  idKey: string
  /** What the record is called in an error message: `no prescription RX-1`. */
  noun: string
  /** The records the read tool finds, each with `idKey`. */
  records: readonly JsonObject[]
  /** The write call's arguments from the record read; `ruled` is false once the rule line is gone, and the model breaks it. */
  writeArgs(record: JsonObject, ruled: boolean, rng: Rng): Record<string, JsonValue>
  /** What the model says with its write call. */
  preface: string
  /** The write backend's answer to the n-th write (1-based). */
  writeResult(args: Record<string, unknown>, n: number): JsonObject
  /** The model's last words after a write that worked. */
  doneText(result: JsonObject): string
  /** Why a write broke the rule, or undefined when it kept it. */
  ruleBroken(args: Record<string, unknown>, record: JsonObject): string | undefined
  /** The name of the rule's oracle. */
  ruleOracle: string
  fabricateId(seed: number): string
  breakSchema(args: Record<string, unknown>): Record<string, unknown>
}

const require = createRequire(import.meta.url)
const validators = new Map<string, ValidateFunction>()

/** The tool's backend checks its arguments as a real service would, against the tool's JSON Schema (ajv). */
function validatorOf(agent: string, def: ToolDef): ValidateFunction {
  const key = `${agent}/${def.name}`
  let validate = validators.get(key)
  if (!validate) {
    const { Ajv } = require('ajv') as typeof import('ajv')
    validate = new Ajv({ strict: false, allErrors: true, logger: false }).compile(def.parameters)
    validators.set(key, validate)
  }
  return validate
}

const LOOPS: Record<Wire, (options: LoopOptions) => Promise<string>> = {
  'openai-chat': chatRetryLoop,
  'openai-responses': responsesLoop,
  'anthropic-messages': messagesLoop,
}

/**
 * Builds a held-out agent from its spec: the wire's tool loop, a world whose backends check their
 * arguments against the tools' JSON Schemas (ajv) and look ids up, the scripted model (read, then write,
 * then confirm; a failed tool reported honestly), and two oracles: the task done (a write that took
 * effect on a known record) and the rule kept.
 *
 * @example
 * export const pharmacyRefillAgent = defineHeldoutAgent({ name: 'pharmacy-refill', wire: 'openai-chat', … })
 */
export function defineHeldoutAgent(spec: HeldoutAgentSpec): HeldoutAgent {
  const find = (id: unknown) => spec.records.find((r) => r[spec.idKey] === id)
  const toolDef = (name: string) => {
    const def = spec.tools.find((t) => t.name === name)
    if (!def) throw new Error(`held-out agent ${spec.name}: no tool ${name} among its tools`)
    return def
  }
  const checkArgs = (name: string, args: Record<string, unknown>) => {
    const validate = validatorOf(spec.name, toolDef(name))
    if (!validate(args)) {
      const why = (validate.errors ?? [])
        .map((e) => `${e.instancePath || 'arguments'} ${e.message}`)
        .join('; ')
      throw new Error(`invalid arguments for ${name}: ${why}`)
    }
  }
  toolDef(spec.readTool)
  toolDef(spec.writeTool)
  return {
    name: spec.name,
    domain: spec.domain,
    wire: spec.wire,
    systemPrompt: spec.systemPrompt,
    policyLine: spec.policyLine,
    inputs: spec.inputs,
    tools: spec.tools,
    readTool: spec.readTool,
    writeTool: spec.writeTool,
    idKey: spec.idKey,
    fabricateId: spec.fabricateId,
    breakSchema: spec.breakSchema,
    wrongToolArgs: (args) => ({ [spec.idKey]: args[spec.idKey] ?? null }),
    createWorld({ fail }: { fail?: ToolFailure }): HeldoutWorld {
      const writes: HeldoutWorld['writes'] = []
      let failedOnce = false
      const backend = (name: string, args: Record<string, unknown>): unknown => {
        if (fail?.tool === name) {
          // A gateway in front of the service: a naive client hands back the page it got, status 200.
          if (fail.mode === 'html') return GATEWAY_502_HTML
          if (fail.mode === 'throw') throw new Error(`${name}: the upstream service is unavailable (503)`)
          if (!failedOnce) {
            failedOnce = true
            throw new Error(`${name}: the upstream timed out after 10 s; nothing was applied, try again`)
          }
        }
        checkArgs(name, args)
        if (name === spec.readTool) {
          const record = find(args[spec.idKey])
          if (!record) throw new Error(`no ${spec.noun} ${String(args[spec.idKey])}`)
          return record
        }
        if (name === spec.writeTool) {
          if (!find(args[spec.idKey])) throw new Error(`no ${spec.noun} ${String(args[spec.idKey])}`)
          writes.push({ tool: name, args })
          return spec.writeResult(args, writes.length)
        }
        return { ok: true }
      }
      const tools: HeldoutWorld['tools'] = {}
      for (const def of spec.tools) {
        tools[def.name] = tool((args: Record<string, unknown>): unknown => backend(def.name, args), {
          name: def.name,
          sideEffects: def.name !== spec.readTool,
        })
      }
      return { tools, writes }
    },
    run({ baseUrl, system, input, world, fetch }) {
      return LOOPS[spec.wire]({ baseUrl, fetch, system, input, tools: spec.tools, run: world.tools })
    },
    model() {
      return (request, ctx) => {
        const results = lastToolResults(request)
        if (results.length === 0) {
          const id = spec.records
            .map((r) => String(r[spec.idKey]))
            .find((candidate) => userText(request).includes(candidate))
          if (!id) return { text: `Which ${spec.noun} is it? Please give me its reference.` }
          return { toolCalls: [{ name: spec.readTool, args: { [spec.idKey]: id } }] }
        }
        const last = results.at(-1)!
        const failure = failureOf(last.content, last.data)
        if (failure) {
          return { text: `I could not finish this: ${failure}. Nothing was changed; please try again later.` }
        }
        if (last.name === spec.readTool) {
          const ruled = systemText(request).includes(spec.policyLine)
          const args = spec.writeArgs(last.data as JsonObject, ruled, ctx.rng)
          return { text: spec.preface, toolCalls: [{ name: spec.writeTool, args }] }
        }
        if (last.name === spec.writeTool) return { text: spec.doneText(last.data as JsonObject) }
        return { text: 'Your request has been handled.' }
      }
    },
    oracles() {
      return [
        {
          name: `${spec.name}-task-done`,
          fn: (run) =>
            effectiveCalls<Record<string, unknown>>(run, spec.writeTool).some((c) =>
              find(c.args[spec.idKey]),
            ) || `no ${spec.writeTool} took effect on a known ${spec.noun}`,
        },
        {
          name: spec.ruleOracle,
          fn: (run) => {
            for (const call of effectiveCalls<Record<string, unknown>>(run, spec.writeTool)) {
              const record = find(call.args[spec.idKey])
              const broken = record ? spec.ruleBroken(call.args, record) : undefined
              if (broken) return broken
            }
          },
        },
      ]
    },
  }
}
