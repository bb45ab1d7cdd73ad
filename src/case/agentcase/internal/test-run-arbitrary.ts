import fc from 'fast-check'
import type { JsonObject, JsonValue } from '../../schema/json.ts'
import type { Part } from '../../schema/normalized.ts'
import type { Run } from '../../schema/run.ts'
import type { Step } from '../../schema/step.ts'

/**
 * fast-check arbitraries of valid crashlab runs, for the AgentCase property tests (not shipped: `test-*`
 * files are excluded from the build). Values stay within what JSON carries exactly (no -0, no NaN),
 * because a run that JSON cannot carry cannot be stored as a cassette either. Ids, hashes and call ids
 * are drawn from small pools so that retries and tool-call parents actually occur.
 */

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'.split('')
const ulid = fc
  .tuple(
    fc.constantFrom(...CROCKFORD.slice(0, 8)),
    fc.array(fc.constantFrom(...CROCKFORD), { minLength: 25, maxLength: 25 }),
  )
  .map(([a, rest]) => a + rest.join(''))
const instant = fc.oneof(
  fc
    .date({
      min: new Date('2000-01-01T00:00:00Z'),
      max: new Date('2099-12-31T00:00:00Z'),
      noInvalidDate: true,
    })
    .map((d) => d.toISOString()),
  fc.constantFrom('2026-07-14T09:30:00+02:00', '2026-07-14T09:30:00.123456Z'),
)
const text = fc.string({ maxLength: 12, unit: 'grapheme' })
const num = fc
  .double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 })
  .map((x) => (x === 0 ? 0 : x))
const nonneg = fc
  .double({ noNaN: true, noDefaultInfinity: true, min: 0, max: 1e7 })
  .map((x) => (x === 0 ? 0 : x))
const nat = fc.nat({ max: 100_000 })
// fc.jsonValue can produce -0, which JSON writes as 0: normalize through JSON itself.
const json: fc.Arbitrary<JsonValue> = fc
  .jsonValue({ maxDepth: 2 })
  .map((v) => JSON.parse(JSON.stringify(v)) as JsonValue)
const jsonObject: fc.Arbitrary<JsonObject> = fc.dictionary(text, json, { maxKeys: 3, noNullPrototype: true })
/**
 * Keys of zod records (`params.extra`). zod skips a `__proto__` key in a record, so RunSchema accepts a
 * run with one but gives it back without it (a cassette load drops it the same way), and no adapter
 * writes one (they assign, which never makes an own `__proto__`): it is left out there, as in the
 * cassette arbitraries. Free JSON keeps it.
 *
 * @example
 * recordKey.canShrinkWithoutContext('__proto__') // false: never drawn
 */
export const recordKey = text.filter((k) => k !== '__proto__')
const recordObject: fc.Arbitrary<JsonObject> = fc.dictionary(recordKey, json, {
  maxKeys: 3,
  noNullPrototype: true,
})
const callId = fc.constantFrom('call_1', 'call_2', 'call_3')
const hash = fc.constantFrom('h1', 'h2')
const headers = fc.dictionary(fc.constantFrom('content-type', 'x-request-id', 'authorization'), text, {
  noNullPrototype: true,
})
const opt = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null })

const stepError = fc.record(
  { name: text, message: text, code: text, status: fc.integer({ min: 100, max: 599 }) },
  { requiredKeys: ['name', 'message'] },
)
const cost = fc.record(
  { usd: nonneg, catalog: text, catalogVersion: text, priceDate: text },
  { requiredKeys: ['usd'] },
)
const timing = fc.record({ startedAt: instant, durationMs: nonneg })
const toolCall = fc.record(
  { type: fc.constant('tool_call' as const), id: callId, name: text, args: json, argsText: text },
  { requiredKeys: ['type', 'id', 'name', 'args'] },
)
const part: fc.Arbitrary<Part> = fc.oneof(
  fc.record({ type: fc.constant('text' as const), text }),
  toolCall,
  fc.record(
    {
      type: fc.constant('tool_result' as const),
      id: callId,
      name: text,
      content: text,
      isError: fc.boolean(),
    },
    { requiredKeys: ['type', 'id', 'content', 'isError'] },
  ),
  fc.record(
    { type: fc.constant('media' as const), mediaType: text, bytes: opt(nat), ref: text, sha256: text },
    { requiredKeys: ['type', 'mediaType', 'bytes'] },
  ),
  fc.record(
    { type: fc.constant('reasoning' as const), text, opaque: fc.boolean() },
    { requiredKeys: ['type', 'text'] },
  ),
)
const parts = fc.array(part, { maxLength: 3 })
const usage = fc.record(
  { inputTokens: nat, outputTokens: nat, cachedTokens: nat, reasoningTokens: nat },
  { requiredKeys: ['inputTokens', 'outputTokens'] },
)
const wireRequest = fc.record(
  { method: fc.constantFrom('GET', 'POST'), url: text, headers, body: opt(json), bodyText: text },
  { requiredKeys: ['method', 'url', 'headers', 'body'] },
)
const chunk = fc.record(
  { event: text, id: text, data: text, atMs: nonneg },
  { requiredKeys: ['data', 'atMs'] },
)
const wireResponse = fc.record(
  {
    status: fc.integer({ min: 100, max: 599 }),
    headers,
    body: opt(json),
    bodyText: text,
    chunks: fc.array(chunk, { maxLength: 3 }),
  },
  { requiredKeys: ['status', 'headers', 'body'] },
)
const params = fc.record(
  {
    temperature: num,
    topP: num,
    maxTokens: fc.integer({ min: -10, max: 100_000 }),
    stop: fc.array(text, { maxLength: 2 }),
    seed: fc.integer(),
    toolChoice: json,
    stream: fc.boolean(),
    extra: recordObject,
  },
  { requiredKeys: [] },
)
const normalizedRequest = fc.record({
  model: text,
  system: parts,
  messages: fc.array(
    fc.record(
      { role: fc.constantFrom('system', 'user', 'assistant', 'tool' as const), parts, name: text },
      { requiredKeys: ['role', 'parts'] },
    ),
    { maxLength: 3 },
  ),
  tools: fc.array(
    fc.record(
      { name: text, description: text, parameters: jsonObject },
      { requiredKeys: ['name', 'parameters'] },
    ),
    {
      maxLength: 2,
    },
  ),
  params,
})
const normalizedResponse = fc.record({
  model: opt(text),
  requestId: opt(text),
  parts,
  toolCalls: fc.array(toolCall, { maxLength: 2 }),
  finishReason: opt(fc.constantFrom('stop', 'length', 'tool_calls', 'content_filter', 'error' as const)),
  usage: opt(usage),
})

const llmStep = fc.record(
  {
    timing,
    error: opt(stepError),
    type: fc.constant('llm' as const),
    provider: text,
    endpoint: text,
    request: fc.record({ wire: wireRequest, normalized: opt(normalizedRequest), requestHash: hash }),
    response: opt(
      fc.record({ wire: wireResponse, normalized: opt(normalizedResponse), incomplete: fc.boolean() }),
    ),
    cost: opt(cost),
  },
  { requiredKeys: ['timing', 'error', 'type', 'provider', 'endpoint', 'request', 'response'] },
)
const toolStep = fc.record(
  {
    timing,
    error: opt(stepError),
    type: fc.constant('tool' as const),
    name: text,
    callId,
    args: json,
    result: json,
    sideEffects: fc.boolean(),
    blocked: fc.boolean(),
    mcp: fc.record(
      {
        server: text,
        method: fc.constant('tools/call'),
        isError: fc.boolean(),
        request: wireRequest,
        response: opt(wireResponse),
      },
      { requiredKeys: ['server', 'method', 'request', 'response'] },
    ),
  },
  { requiredKeys: ['timing', 'error', 'type', 'name', 'args', 'sideEffects'] },
)
const httpStep = fc.record({
  timing,
  error: opt(stepError),
  type: fc.constant('http' as const),
  label: text,
  request: wireRequest,
  response: opt(wireResponse),
})

/**
 * Any valid run, with 0–6 steps of every kind.
 *
 * @example
 * fc.assert(fc.property(runArbitrary(), (run) => { expect(fromAgentCase(toAgentCase(run))).toEqual(run) }))
 */
export function runArbitrary(): fc.Arbitrary<Run> {
  return fc
    .record({
      id: ulid,
      name: text,
      tags: fc.array(text, { maxLength: 2 }),
      status: fc.constantFrom('ok', 'error', 'incomplete' as const),
      outcome: fc.constantFrom('pass', 'fail', 'unknown' as const),
      completeness: fc.constantFrom('complete', 'partial', 'degraded', 'interrupted', 'unsupported' as const),
      input: opt(json),
      output: opt(json),
      error: opt(
        fc.oneof(
          stepError,
          fc.record({ name: fc.constantFrom('AbortError', 'TimeoutError'), message: text }),
        ),
      ),
      entryPoint: opt(
        fc.oneof(
          fc.record({ kind: fc.constant('module' as const), module: text, export: text }),
          fc.record({ kind: fc.constant('test' as const), file: text, test: text }),
        ),
      ),
      startedAt: instant,
      endedAt: opt(instant),
      usage: fc.record({
        inputTokens: nat,
        outputTokens: nat,
        cachedTokens: nat,
        reasoningTokens: nat,
        llmCalls: nat,
        toolCalls: nat,
      }),
      cost: opt(cost),
      gitSha: opt(text),
      links: fc.record(
        { replayOf: ulid, forkedFrom: ulid, forkStep: fc.nat({ max: 9 }), patch: json },
        { requiredKeys: [] },
      ),
      steps: fc.array(fc.oneof(llmStep, toolStep, httpStep), { maxLength: 6 }),
      checks: fc.array(
        fc.record({ name: text, passed: fc.boolean(), message: text }, { requiredKeys: ['name', 'passed'] }),
        {
          maxLength: 2,
        },
      ),
      findings: fc.array(
        fc.record({
          kind: text,
          severity: fc.constantFrom('info', 'warn', 'error', 'critical' as const),
          steps: fc.array(fc.nat({ max: 9 }), { maxLength: 2 }),
          message: text,
          evidence: fc.array(text, { maxLength: 2 }),
        }),
        { maxLength: 2 },
      ),
      diagnosis: opt(
        fc.record({
          label: fc.constantFrom('TOOL_ERROR_MISHANDLED', 'NO_FAILURE', 'UNKNOWN' as const),
          failingStep: opt(fc.nat({ max: 9 })),
          rootCause: text,
          evidence: fc.array(fc.record({ step: fc.nat({ max: 9 }), quote: text }), { maxLength: 2 }),
          by: text,
          createdAt: instant,
        }),
      ),
      fixes: fc.array(
        fc.record({
          id: text,
          rank: fc.integer({ min: 1, max: 3 }),
          patch: json,
          rationale: text,
          expectedEffect: text,
        }),
        { maxLength: 2 },
      ),
      redaction: fc.record({
        status: fc.constantFrom('none', 'redacted', 'partial' as const),
        records: fc.array(
          fc.record({
            path: fc.oneof(
              text,
              fc.constantFrom(
                '/run/steps/0/request/wire/headers/authorization',
                '/steps/1/args',
                '/input',
                '/metadata/a',
              ),
            ),
            rule: text,
          }),
          { maxLength: 2 },
        ),
      }),
      metadata: jsonObject,
    })
    .map((run) => ({ ...run, steps: run.steps.map((s, index) => ({ ...s, index }) as Step) }))
}
