import { monotonicFactory } from 'ulid'
import type { JsonObject, JsonValue } from './schema/json.ts'
import type { EntryPoint, Run } from './schema/run.ts'

const nextUlid = monotonicFactory()

/** A new run id: a ULID, so ids sort by creation time. */
export function newRunId(): string {
  return nextUlid()
}

export interface CreateRunOptions {
  name: string
  input?: JsonValue | null
  tags?: string[]
  entryPoint?: EntryPoint | null
  gitSha?: string | null
  metadata?: JsonObject
  startedAt?: Date
  id?: string
}

/**
 * An empty run, ready for steps: status `incomplete` and outcome `unknown` until it ends.
 *
 * @example
 * const run = createRun({ name: 'refund-bot', input: 'Refund my order A17' })
 */
export function createRun(options: CreateRunOptions): Run {
  return {
    id: options.id ?? newRunId(),
    name: options.name,
    tags: options.tags ?? [],
    status: 'incomplete',
    outcome: 'unknown',
    completeness: 'complete',
    input: options.input ?? null,
    output: null,
    error: null,
    entryPoint: options.entryPoint ?? null,
    startedAt: (options.startedAt ?? new Date()).toISOString(),
    endedAt: null,
    usage: {
      inputTokens: 0,
      outputTokens: 0,
      cachedTokens: 0,
      reasoningTokens: 0,
      llmCalls: 0,
      toolCalls: 0,
    },
    cost: null,
    gitSha: options.gitSha ?? null,
    links: {},
    steps: [],
    checks: [],
    findings: [],
    diagnosis: null,
    fixes: [],
    redaction: { status: 'none', records: [] },
    metadata: options.metadata ?? {},
  }
}
