import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runBinSync } from './helpers/built-bin.ts'

// `crashlab import` of OpenTelemetry traces (OTLP JSON) through the real bin, into a store of its own:
// the format told from the file, each agent trace a run, redacted on the way in.
const FIXTURES = resolve(import.meta.dirname, '..', 'src', 'otel', 'fixtures')
let dir: string
let store: string

interface Attribute {
  key: string
  value: { stringValue?: string }
}

const crashlab = (...args: string[]) => runBinSync(dir, { CRASHLAB_DIR: store }, ...args)

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'crashlab-cli-import-otlp-'))
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n')
  store = join(dir, 'runs')
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('crashlab import of OTLP traces', () => {
  it('an OTLP JSON document and its JSON Lines: each agent trace a run, tagged otel, listed by ls', () => {
    const r = crashlab('import', join(FIXTURES, 'genai-agent.json'), join(FIXTURES, 'genai-agent.jsonl'))
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const lines = r.stdout.trim().split('\n')
    expect(lines).toHaveLength(2)
    for (const line of lines)
      expect(line).toMatch(
        /^imported .*genai-agent\.jsonl? trace [0-9a-f]{32} as \w+ \(.+, \d+ steps; gen_ai\)$/,
      )
    const listed = JSON.parse(crashlab('ls', '--json').stdout) as Array<{ tags: string[] }>
    expect(listed).toHaveLength(2)
    for (const run of listed) expect(run.tags).toEqual(expect.arrayContaining(['imported', 'otel']))
  })

  it("the OpenAI Agents SDK's own trace payload (captured from its exporter): told from the file, one run", () => {
    const r = crashlab('import', join(FIXTURES, 'openai-agents-payload.json'))
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(
      /^imported .*openai-agents-payload\.json trace \w+ as \w+ \(order-bot, 3 steps; openai-agents\)\n$/,
    )
  })

  it('a trace that captured no content: imported, and the steps without it are named', () => {
    const r = crashlab('import', join(FIXTURES, 'genai-no-content.json'))
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/\n {2}incomplete: steps? [\d, ]+ \(the trace holds no message content there/)
  })

  it('a secret in a span never reaches the store', () => {
    const secret = `sk-proj-${'Ab3dEf9hIj2lMn7pQr5tUv8xYz1bCd4fGh6jKm0nPq'.repeat(2)}`
    // The secret in the user's message of the first inference span (`gen_ai.input.messages`, a JSON string).
    const doc = JSON.parse(readFileSync(join(FIXTURES, 'genai-agent.json'), 'utf8')) as {
      resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ attributes?: Attribute[] }> }> }>
    }
    const input = doc.resourceSpans
      .flatMap((r) => r.scopeSpans.flatMap((s) => s.spans))
      .flatMap((span) => span.attributes ?? [])
      .find((a) => a.key === 'gen_ai.input.messages')
    if (!input?.value.stringValue) throw new Error('the fixture has no gen_ai.input.messages')
    input.value.stringValue = input.value.stringValue.replace(
      '"content":"',
      `"content":"my key is ${secret}. `,
    )
    const text = JSON.stringify(doc)
    expect(text).toContain(secret)
    const file = join(dir, 'with-secret.json')
    writeFileSync(file, text)
    const r = crashlab('import', file, '--tag', 'secret')
    expect(r.code).toBe(0)
    const id = /as (\w+) /.exec(r.stdout)?.[1] as string
    const shown = crashlab('show', id, '--json').stdout
    // The message was imported (so its secret was there to leak), and the secret was redacted out of it.
    expect(shown).toContain('my key is')
    expect(shown).not.toContain(secret.slice(8, 40))
  })

  it('OTLP with no agent trace, a forced format that does not fit, an unknown format: clear errors', () => {
    const plain = join(dir, 'http-only.json')
    writeFileSync(
      plain,
      JSON.stringify({
        resourceSpans: [
          {
            resource: { attributes: [] },
            scopeSpans: [
              {
                scope: { name: 'http' },
                spans: [
                  {
                    traceId: '0af7651916cd43dd8448eb211c80319c',
                    spanId: 'b7ad6b7169203331',
                    name: 'GET /health',
                    startTimeUnixNano: '1',
                    endTimeUnixNano: '2',
                  },
                ],
              },
            ],
          },
        ],
      }),
    )
    const none = crashlab('import', plain)
    expect(none.code).toBe(1)
    expect(none.stderr).toContain('holds traces but no agent trace')
    const cassette = resolve(
      import.meta.dirname,
      '..',
      'examples/refund-bot/__cassettes__/refund-a17.cassette.json',
    )
    const forced = crashlab('import', cassette, '--format', 'otlp')
    expect(forced.code).toBe(1)
    expect(forced.stderr).toContain('E_OTLP_MALFORMED')
    const unknown = crashlab('import', cassette, '--format', 'zipkin')
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain(
      '--format zipkin is not a format import reads: use cassette, agentcase, otlp',
    )
  })
})
