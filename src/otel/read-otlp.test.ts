import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CrashlabError } from '../errors.ts'
import { readOtlp } from './read-otlp.ts'

const fixture = (name: string) => readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8')

function errorOf(fn: () => unknown): CrashlabError {
  try {
    fn()
  } catch (err) {
    if (err instanceof CrashlabError) return err
    throw err
  }
  throw new Error('expected a CrashlabError')
}

describe('readOtlp', () => {
  it('reads an OTLP JSON document: ids, nanosecond times, decoded attributes, the resource and scope', () => {
    const spans = readOtlp(fixture('genai-agent.json'), 'genai-agent.json')
    expect(spans).toHaveLength(6)
    const chat = spans.find((s) => s.spanId === 'b1b2c3d4e5f60718')!
    expect(chat.traceId).toBe('5b8efff798038103d269b633813fc60c')
    expect(chat.parentSpanId).toBe('a1b2c3d4e5f60718')
    expect(chat.startTimeUnixNano).toBe(1764748800010000123n)
    expect(chat.attributes['gen_ai.usage.input_tokens']).toBe(62) // intValue is a string on the wire
    expect(chat.attributes['gen_ai.request.temperature']).toBe(0.2)
    expect(chat.attributes['gen_ai.response.finish_reasons']).toEqual(['tool_calls'])
    expect(chat.resource['service.name']).toBe('weather-service')
    expect(chat.scope.name).toBe('@opentelemetry/instrumentation-openai-agents')
    expect(spans.find((s) => s.name === 'invoke_agent weather-agent')!.parentSpanId).toBeNull()
  })

  it('reads JSON Lines, one export request per line, into the same spans', () => {
    const lines = readOtlp(fixture('genai-agent.jsonl'), 'genai-agent.jsonl')
    const doc = readOtlp(fixture('genai-agent.json'))
    const key = (s: { spanId: string }) => s.spanId
    expect(lines.map(key).sort()).toEqual(doc.map(key).sort())
    expect(lines.find((s) => s.spanId === 'd1b2c3d4e5f60718')).toEqual(
      doc.find((s) => s.spanId === 'd1b2c3d4e5f60718'),
    )
  })

  it('decodes every AnyValue kind and the status, and takes base64 ids as proto3 JSON writes them', () => {
    const text = JSON.stringify({
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                {
                  traceId: Buffer.from('5b8efff798038103d269b633813fc60c', 'hex').toString('base64'),
                  spanId: 'B1B2C3D4E5F60718',
                  name: 'x',
                  startTimeUnixNano: '1',
                  endTimeUnixNano: '2',
                  status: { code: 'STATUS_CODE_ERROR', message: 'boom' },
                  attributes: [
                    { key: 'b', value: { boolValue: true } },
                    { key: 'big', value: { intValue: '9007199254740993' } },
                    {
                      key: 'kv',
                      value: { kvlistValue: { values: [{ key: 'k', value: { stringValue: 'v' } }] } },
                    },
                    { key: 'empty', value: {} },
                  ],
                },
              ],
            },
          ],
        },
      ],
    })
    const [span] = readOtlp(text)
    expect(span!.traceId).toBe('5b8efff798038103d269b633813fc60c')
    expect(span!.spanId).toBe('b1b2c3d4e5f60718')
    expect(span!.status).toEqual({ code: 2, message: 'boom' })
    expect(span!.attributes).toEqual({ b: true, big: '9007199254740993', kv: { k: 'v' }, empty: null })
  })

  it('refuses what is not OTLP traces with E_OTLP_MALFORMED, naming the file and the problem', () => {
    const brokenLine = errorOf(() => readOtlp('{"resourceSpans": []}\n{"resourceSpans": [\n', 'traces.jsonl'))
    expect(brokenLine.code).toBe('E_OTLP_MALFORMED')
    expect(brokenLine.message).toMatch(/^\[crashlab\] traces\.jsonl line 2 is not JSON/)
    expect(brokenLine.subject).toBe('traces.jsonl')
    // A broken pretty-printed document is reported as a document, not as JSON Lines.
    const brokenDoc = errorOf(() => readOtlp('{\n  "resourceSpans": [],\n}\n', 'traces.json'))
    expect(brokenDoc.message).toMatch(/^\[crashlab\] traces\.json is not JSON \(/)

    expect(errorOf(() => readOtlp('{"resourceMetrics": []}', 'metrics.json')).message).toContain(
      'metrics.json is not an OTLP trace export: expected an object with a "resourceSpans" array',
    )
    expect(errorOf(() => readOtlp('  \n', 'empty.json')).message).toContain('empty.json is empty')

    const span = { traceId: 'xyz', spanId: 'b1b2c3d4e5f60718', startTimeUnixNano: '1' }
    const badId = errorOf(() =>
      readOtlp(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [span] }] }] }), 't.json'),
    )
    expect(badId.message).toContain(
      't.json resourceSpans[0].scopeSpans[0].spans[0].traceId is not a trace id',
    )

    const badAttr = {
      ...span,
      traceId: '5b8efff798038103d269b633813fc60c',
      attributes: [{ key: 'a', value: { intValue: 'x' } }],
    }
    const line2 = `\n${JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [badAttr] }] }] })}`
    expect(errorOf(() => readOtlp(`{"resourceSpans":[]}${line2}`, 't.jsonl')).message).toContain(
      't.jsonl line 2: resourceSpans[0].scopeSpans[0].spans[0].attributes is not a list of OTLP attributes',
    )
  })
})
