import type { ValidationIssue } from '../../errors.ts'
import type { JsonObject } from '../schema/json.ts'
import { dollarPath } from './internal/issue-paths.ts'
import type { AgentCase, AgentCaseEvent } from './schema.ts'

/**
 * The payload contracts of AgentCase 0.1. The format makes them binding on writers only (the reference's
 * own `valid_minimal` fixture does not follow them), so the reader never calls this; crashlab's export
 * is tested against it and `writeAgentCase(..., { strictPayloads: true })` enforces it.
 * Extra payload keys are allowed: a payload is free JSON, the contract names what must be there.
 */

type FieldRule = 'string' | 'boolean' | 'object' | 'array' | 'json' | 'nonneg' | 'int>=1'

interface Contract {
  required: Record<string, FieldRule>
  optional?: Record<string, FieldRule>
}

const CONTRACTS: Partial<Record<AgentCaseEvent['event_type'], Contract>> = {
  'model.request': {
    required: { provider: 'string', model: 'string', input: 'json', parameters: 'object', tools: 'array' },
  },
  'model.response': {
    required: { provider: 'string', model: 'string', output: 'json' },
    optional: { finish_reason: 'string', usage: 'object', latency_ms: 'nonneg' },
  },
  'tool.call': { required: { name: 'string', call_id: 'string', arguments: 'json' } },
  'tool.result': {
    required: { name: 'string', call_id: 'string', status: 'string' },
    optional: { result: 'json', error: 'json', latency_ms: 'nonneg' },
  },
  exception: {
    required: { exception_type: 'string', message: 'string', handled: 'boolean' },
    optional: { traceback: 'string' },
  },
  retry: {
    required: { attempt: 'int>=1' },
    optional: { reason: 'string', delay_ms: 'nonneg', target: 'string' },
  },
  'execution.end': { required: { outcome: 'string', duration_ms: 'nonneg' }, optional: { reason: 'string' } },
}

/**
 * Lists every way the payloads of `c` break the writer contracts (an empty list when none): required
 * fields and their types, `tool.result` status and error, `execution.end` outcome equal to the root
 * outcome, a response's parent being a request, a result's parent being the call with the same name
 * and call_id. Paths are `$`-style, e.g. `$.events[4].payload.call_id`.
 *
 * @example
 * expect(validateAgentCasePayloads(toAgentCase(run))).toEqual([])
 */
export function validateAgentCasePayloads(c: AgentCase): ValidationIssue[] {
  const issues: ValidationIssue[] = []
  const byId = new Map(c.events.map((e) => [e.event_id.toLowerCase(), e]))
  c.events.forEach((event, i) => {
    const at = (...rest: PropertyKey[]) => dollarPath(['events', i, ...rest])
    const add = (path: string, message: string) => issues.push({ code: 'payload_contract', path, message })
    const contract = CONTRACTS[event.event_type]
    if (!contract) return
    const p = event.payload
    for (const [key, rule] of Object.entries(contract.required)) {
      if (!(key in p)) add(at('payload', key), `${event.event_type} payload needs "${key}"`)
      else if (!fits(p[key], rule)) add(at('payload', key), `"${key}" must be ${describe(rule)}`)
    }
    for (const [key, rule] of Object.entries(contract.optional ?? {})) {
      if (key in p && !fits(p[key], rule)) add(at('payload', key), `"${key}" must be ${describe(rule)}`)
    }
    const parent = event.parent_event_id === null ? undefined : byId.get(event.parent_event_id.toLowerCase())
    switch (event.event_type) {
      case 'model.response':
        if (parent?.event_type !== 'model.request') {
          add(at('parent_event_id'), 'a model.response must have its model.request as parent')
        }
        break
      case 'tool.result':
        if (p.status !== 'success' && p.status !== 'failure') {
          add(at('payload', 'status'), 'tool.result status must be "success" or "failure"')
        }
        if (p.status === 'failure' && !('error' in p)) {
          add(at('payload', 'error'), 'a failed tool.result needs "error"')
        }
        if (parent?.event_type !== 'tool.call')
          add(at('parent_event_id'), 'a tool.result must have its tool.call as parent')
        else
          checkSameCall(parent.payload, p, (key) =>
            add(at('payload', key), `"${key}" differs from its tool.call`),
          )
        break
      case 'execution.end':
        if ('outcome' in p && p.outcome !== c.outcome) {
          add(at('payload', 'outcome'), `execution.end outcome must equal the root outcome "${c.outcome}"`)
        }
        break
    }
  })
  return issues
}

function checkSameCall(call: JsonObject, result: JsonObject, report: (key: string) => void): void {
  for (const key of ['name', 'call_id']) if (call[key] !== result[key]) report(key)
}

function fits(v: unknown, rule: FieldRule): boolean {
  switch (rule) {
    case 'string':
      return typeof v === 'string'
    case 'boolean':
      return typeof v === 'boolean'
    case 'object':
      return typeof v === 'object' && v !== null && !Array.isArray(v)
    case 'array':
      return Array.isArray(v)
    case 'json':
      return v !== undefined
    case 'nonneg':
      return typeof v === 'number' && Number.isFinite(v) && v >= 0
    case 'int>=1':
      return typeof v === 'number' && Number.isInteger(v) && v >= 1
  }
}

function describe(rule: FieldRule): string {
  return {
    string: 'a string',
    boolean: 'a boolean',
    object: 'an object',
    array: 'an array',
    json: 'present',
    nonneg: 'a number ≥ 0',
    'int>=1': 'an integer ≥ 1',
  }[rule]
}
