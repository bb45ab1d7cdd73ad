import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { writeCassette } from '../case/cassette-write.ts'
import { buildRealisticRun } from '../case/internal/test-runs.ts'
import type { LlmStep } from '../case/schema/step.ts'
import { getAdapter } from '../providers/registry.ts'
import { createRedactor } from './create-redactor.ts'
import { FAILED_MARKER, redactWalk, type WalkState } from './internal/redact-walk.ts'
import { compileRules } from './internal/rule-set.ts'
import { STREAM_BUILDERS, splitAround, type TestChunk } from './internal/test-streams.ts'
import { redactDocument } from './redact-document.ts'
import { scanDocument } from './scan-document.ts'
import { SECRET_CORPUS } from './test-corpus.ts'

const dir = mkdtempSync(join(tmpdir(), 'crashlab-stream-redaction-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const escaped = (s: string): string => JSON.stringify(s).slice(1, -1)

/** The text the stream carries and the core as it appears in that text (JSON-escaped in tool arguments). */
function planted(kind: 'text' | 'tool-args', secret: string, core: string): { text: string; core: string } {
  const said = `my key is ${secret}, keep it safe`
  if (kind === 'text') return { text: said, core }
  return { text: JSON.stringify({ note: said }), core: escaped(core) }
}

function redactChunks(chunks: TestChunk[]) {
  const doc = { response: { wire: { chunks } } }
  const result = redactDocument(doc)
  return { ...result, chunks: result.value.response.wire.chunks }
}

const KEY = SECRET_CORPUS.find((e) => e.id === 'openai-project-key')!

describe('a secret split across stream chunks', () => {
  for (const { name, build } of STREAM_BUILDERS) {
    for (const n of [2, 3]) {
      it(`${name}: split over ${n} chunks, it is redacted; untouched chunks are byte-identical`, () => {
        const stream0 = build(['x'])
        const { text, core } = planted(stream0.kind, KEY.secret, KEY.core)
        const { pieces, coreParts } = splitAround(text, core, n)
        const stream = build(pieces)
        // The last piece matches nothing on its own: the per-string pass alone would write it as it is.
        const last = stream.chunks[stream.pieceChunks.at(-1)!]!.data
        expect(createRedactor().redactString(last).records).toEqual([])

        const { chunks, records } = redactChunks(stream.chunks)
        expect(chunks).toHaveLength(stream.chunks.length)
        const bytes = JSON.stringify(chunks)
        for (const part of coreParts) expect(bytes).not.toContain(part)
        const rewritten = chunks.flatMap((c, i) => (c.data === stream.chunks[i]!.data ? [] : [i]))
        expect(rewritten).toEqual(stream.pieceChunks)
        // every other chunk is the same object, so its bytes are unchanged
        chunks.forEach((c, i) => {
          if (!rewritten.includes(i)) expect(c).toBe(stream.chunks[i])
          else expect({ ...c, data: '' }).toEqual({ ...stream.chunks[i], data: '' })
        })
        expect(records).toEqual(
          rewritten.map((i) => ({
            path: `/response/wire/chunks/${i}/data`,
            rule: 'openai-key',
            marker: '[REDACTED:openai-key]',
          })),
        )

        const assembled = getAdapter(stream.provider).assembleStream(chunks)
        expect(assembled.incomplete).toBe(false)
        const normalized = JSON.stringify(assembled.response)
        expect(normalized).toContain('[REDACTED:openai-key]')
        expect(normalized).toContain('keep it safe')
        for (const part of coreParts) expect(normalized).not.toContain(part)
      })
    }
  }

  it(`no secret of the corpus (${SECRET_CORPUS.length} formats) survives a split, in any stream shape`, () => {
    const leaks: string[] = []
    for (const { id, secret, core: rawCore } of SECRET_CORPUS) {
      for (const { name, build } of STREAM_BUILDERS) {
        const { text, core } = planted(build(['x']).kind, secret, rawCore)
        for (const n of [2, 3]) {
          const { pieces, coreParts } = splitAround(text, core, n)
          const { chunks } = redactChunks(build(pieces).chunks)
          const bytes = JSON.stringify(chunks)
          if (coreParts.some((p) => bytes.includes(p) || bytes.includes(escaped(p))))
            leaks.push(`${id} in ${name} (${n})`)
        }
      }
    }
    expect(leaks).toEqual([])
  })

  it('a sensitive key inside streamed tool arguments is redacted across chunks', () => {
    const stream = STREAM_BUILDERS[1]!.build([
      '{"user":"ann","pass',
      'word":"correct-horse-',
      'battery-staple"}',
    ])
    const { chunks, records } = redactChunks(stream.chunks)
    expect(JSON.stringify(chunks)).not.toContain('battery-staple')
    expect(JSON.stringify(chunks)).not.toContain('correct-horse')
    expect(records.map((r) => r.rule)).toContain('sensitive-key')
    const call = getAdapter('openai-chat').assembleStream(chunks).response.toolCalls[0]
    expect(call?.args).toEqual({ user: 'ann', password: '[REDACTED:sensitive-key]' })
  })

  it('a stream with no secret is returned as the same array', () => {
    const { chunks } = STREAM_BUILDERS[0]!.build(['Hello', ' there, ', 'how can I help?'])
    const result = redactChunks(chunks)
    expect(result.chunks).toBe(chunks)
    expect(result.records).toEqual([])
  })

  it('a rule that throws on the assembled text drops that text and marks the result partial', () => {
    // Throws only on text longer than any one chunk's, so only the stream pass sees it fail.
    const rules = compileRules(
      [],
      [
        {
          id: 'boom',
          marker: '[REDACTED:boom]',
          hints: [],
          scan: (text) => {
            if (text.startsWith('some text that is')) throw new RangeError('stack')
            return []
          },
        },
      ],
    )
    const state: WalkState = {
      rules,
      isSensitive: () => false,
      hooks: [],
      records: [],
      warnings: [],
      partial: false,
    }
    const { chunks } = STREAM_BUILDERS[0]!.build(['some text that ', 'is long enough'])
    const out = redactWalk({ chunks }, state, [], undefined, false) as { chunks: TestChunk[] }
    expect(state.partial).toBe(true)
    expect(state.warnings[0]).toMatch(/"boom" failed on the stream at \/chunks \(RangeError\)/)
    const assembled = getAdapter('openai-chat').assembleStream(out.chunks).response.parts
    expect(assembled).toEqual([{ type: 'text', text: FAILED_MARKER }])
    expect(state.records.map((r) => r.path)).toEqual(['/chunks/1/data', '/chunks/2/data'])
  })

  it('writeCassette: the split halves never reach the disk, and the records point into the chunks', () => {
    const run = buildRealisticRun({ steps: 3, seed: 9 })
    const llm = run.steps.find((s): s is LlmStep => s.type === 'llm')!
    const { text, core } = planted('text', KEY.secret, KEY.core)
    const { pieces, coreParts } = splitAround(text, core, 3)
    const stream = STREAM_BUILDERS[0]!.build(pieces)
    llm.response = { ...llm.response!, wire: { status: 200, headers: {}, body: null, chunks: stream.chunks } }
    const path = join(dir, 'split.cassette.json')
    const written = writeCassette(path, run)
    const bytes = readFileSync(path, 'utf8')
    for (const part of coreParts) expect(bytes).not.toContain(part)
    expect(written.run.redaction.records).toEqual(
      expect.arrayContaining(
        stream.pieceChunks.map((i) => ({
          path: `/run/steps/${llm.index}/response/wire/chunks/${i}/data`,
          rule: 'openai-key',
        })),
      ),
    )
    const chunks = (written.run.steps[llm.index] as LlmStep).response!.wire.chunks!
    expect(getAdapter('openai-chat').assembleStream(chunks).response.parts).toEqual([
      { type: 'text', text: 'my key is [REDACTED:openai-key], keep it safe' },
    ])
  })
})

describe('crashlab scan assembles streams the same way', () => {
  for (const { name, build } of STREAM_BUILDERS) {
    it(`${name}: a secret split over 3 chunks is reported at the chunk where it starts`, () => {
      const { text, core } = planted(build(['x']).kind, KEY.secret, KEY.core)
      const { pieces } = splitAround(text, core, 3)
      const stream = build(pieces)
      const doc = { run: { steps: [{ response: { wire: { chunks: stream.chunks } } }] } }
      const findings = scanDocument(doc, { entropy: false }).filter((f) => f.rule === 'openai-key')
      const first = `/run/steps/0/response/wire/chunks/${stream.pieceChunks[0]}/data`
      expect(findings.map((f) => f.pointer)).toContain(first)
      expect(findings.every((f) => !f.excerpt.includes(KEY.core.slice(4, 12)))).toBe(true)
      // the last third alone matches nothing: only the assembled text can report it
      const onlyLast = { chunks: [stream.chunks[stream.pieceChunks.at(-1)!]!] }
      expect(scanDocument(onlyLast, { entropy: false })).toEqual([])
      // once redacted, the scan is clean
      expect(scanDocument(redactDocument(doc).value, { entropy: false })).toEqual([])
    })
  }

  it('reports a split secret whose halves match nothing alone', () => {
    const github = SECRET_CORPUS.find((e) => e.id === 'github-token')!
    const stream = STREAM_BUILDERS[0]!.build([
      `token ${github.secret.slice(0, 3)}`,
      `${github.secret.slice(3)} ok`,
    ])
    const findings = scanDocument({ chunks: stream.chunks }, { entropy: false })
    expect(findings).toEqual([
      expect.objectContaining({
        pointer: '/chunks/1/data',
        embeddedPointer: '/choices/0/delta/content',
        rule: 'github-token',
      }),
    ])
  })
})
