import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { formatScanReport } from './format-scan-report.ts'
import { redactDocument } from './redact-document.ts'
import { scanDocument } from './scan-document.ts'
import { scanPaths } from './scan-paths.ts'
import { scanText } from './scan-text.ts'

/** Random-looking, fixed: no secret format, so only the entropy heuristic can see it. */
const RANDOM = 'q8Zk3Vx9LmP2rT7wYb4Nc6Hd0Jf5Gs1A'
const RANDOM_HEX = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'
const openai = `sk-${'proj'}-${'Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z'}`

describe('scanDocument', () => {
  it('reports a random value under an ordinary key', () => {
    expect(scanDocument({ note: RANDOM })).toEqual([
      { file: '<input>', pointer: '/note', rule: 'high-entropy', excerpt: 'q8Zk…(32)' },
    ])
  })

  it.each([
    ['obfuscation', { delta: { content: 'hi' }, obfuscation: RANDOM }],
    ['encrypted_content', { output: [{ type: 'reasoning', encrypted_content: RANDOM }] }],
    ['signature', { content: [{ type: 'thinking', thinking: 'hmm', signature: RANDOM }] }],
    ['id', { id: `chatcmpl-${RANDOM}` }],
    ['call_id', { output: [{ call_id: `call_${RANDOM}` }] }],
    ['tool_use_id', { content: [{ tool_use_id: `toolu_${RANDOM}` }] }],
    ['previous_response_id', { previous_response_id: `resp_${RANDOM_HEX}` }],
    ['requestHash', { steps: [{ request: { requestHash: RANDOM_HEX } }] }],
    ['sha256', { files: [{ sha256: RANDOM_HEX }] }],
    ['x-request-id', { headers: { 'X-Request-Id': `req_${RANDOM}` } }],
    ['/run/id', { run: { id: '01J9ZQ4K7XW3M2N8P5R6T0V1YB' } }],
    ['links', { run: { links: { parent: ['01J9ZQ4K7XW3M2N8P5R6T0V1YB', RANDOM] } } }],
    ['event_id', { events: [{ event_id: RANDOM, parent_event_id: RANDOM }], case_id: RANDOM }],
  ])('does not report %s, which is random by design', (_name, doc) => {
    expect(scanDocument(doc)).toEqual([])
  })

  it('applies the location rules inside SSE chunk data that is JSON', () => {
    const data = JSON.stringify({ id: `chatcmpl-${RANDOM}`, obfuscation: RANDOM, note: RANDOM })
    const findings = scanDocument({ chunks: [{ data, atMs: 0 }] })
    expect(findings).toEqual([
      {
        file: '<input>',
        pointer: '/chunks/0/data',
        embeddedPointer: '/note',
        rule: 'high-entropy',
        excerpt: 'q8Zk…(32)',
      },
    ])
  })

  it('reads SSE text in a bodyText line by line', () => {
    const ok = JSON.stringify({ obfuscation: RANDOM })
    const leak = JSON.stringify({ delta: { content: `key ${openai}` } })
    const findings = scanDocument({ bodyText: `event: x\ndata: ${ok}\n\ndata: ${leak}\n\ndata: [DONE]\n` })
    expect(findings.map((f) => [f.pointer, f.embeddedPointer, f.rule])).toEqual([
      ['/bodyText', '/delta/content', 'openai-key'],
    ])
  })

  it('reports unredacted values under sensitive keys but not markers', () => {
    const findings = scanDocument({
      headers: { authorization: 'Basic abc', 'x-api-key': '[REDACTED:sensitive-key]' },
      creds: { password: { nested: 'p' } },
      empty: { token: '' },
    })
    expect(findings.map((f) => [f.pointer, f.rule])).toEqual([
      ['/headers/authorization', 'sensitive-key'],
      ['/creds/password', 'sensitive-key'],
    ])
  })

  it('does not take a tool schema property named like a secret for a leak', () => {
    const doc = {
      tools: [{ parameters: { properties: { password: { type: 'string' } }, required: ['password'] } }],
    }
    expect(scanDocument(doc)).toEqual([])
    expect(scanDocument({ properties: { password: 'hunter22' } }).map((f) => f.rule)).toEqual([
      'sensitive-key',
    ])
  })

  it('extends the allow-list by option, by key and by pointer glob', () => {
    const doc = { trace: { token_fingerprint: RANDOM }, blobs: [{ payload: RANDOM }] }
    expect(scanDocument(doc)).toHaveLength(2)
    expect(
      scanDocument(doc, { allow: { keys: ['token-fingerprint'], pointers: ['/blobs/*/payload'] } }),
    ).toEqual([])
  })

  it('still reports a known secret format at an allow-listed location', () => {
    expect(scanDocument({ id: openai }).map((f) => f.rule)).toEqual(['openai-key'])
  })

  it('does not report ordinary text, identifiers, UUIDs or data URLs', () => {
    const doc = {
      content:
        'The ConversationSummaryBufferMemory2024 class lives in docs/API-Reference/v2/Chat-Completions.',
      model: 'claude-3-5-sonnet-20241022',
      trace: '123e4567-e89b-12d3-a456-426614174000',
      image: `data:image/png;base64,${RANDOM}${RANDOM}`,
      path: '/home/runner/work/crashlab/src/redact/internal/sensitive-keys.ts',
    }
    expect(scanDocument(doc)).toEqual([])
  })

  it('can turn the entropy heuristic off', () => {
    expect(scanDocument({ note: RANDOM }, { entropy: false })).toEqual([])
  })
})

describe('scanText', () => {
  it('reports line numbers and masked excerpts', () => {
    const findings = scanText(`first line\nsecond ${openai}\n`)
    expect(findings).toEqual([
      { file: '<input>', pointer: null, line: 2, rule: 'openai-key', excerpt: 'sk-p…(40)' },
    ])
  })

  it('reads the key written before a token as its location', () => {
    expect(scanText(`{"requestHash":"${RANDOM_HEX}","note":"${RANDOM}"}`).map((f) => f.rule)).toEqual([
      'high-entropy',
    ])
    expect(scanText(`x-request-id: req_${RANDOM}`)).toEqual([])
  })

  it('agrees with the redactor: nothing is found in redacted text', () => {
    const text = JSON.stringify({ a: `Bearer ${RANDOM}`, b: openai, c: 'password=hunter22!' })
    expect(scanText(text).length).toBeGreaterThanOrEqual(3)
    expect(scanText(redactDocument(text).value)).toEqual([])
  })
})

describe('scanPaths', () => {
  let root: string
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'crashlab-scan-'))
    const write = async (path: string, text: string) => {
      await mkdir(join(root, path, '..'), { recursive: true })
      await writeFile(join(root, path), text)
    }
    await write('__cassettes__/a.cassette.json', JSON.stringify({ run: { steps: [{ note: openai }] } }))
    await write('__cassettes__/clean.json', JSON.stringify({ run: { id: '01J9ZQ4K7XW3M2N8P5R6T0V1YB' } }))
    await write('broken.json', `{"oops": "${openai}",`)
    await write(
      'runs.jsonl',
      `${JSON.stringify({ ok: 1 })}\n\n${JSON.stringify({ headers: { cookie: 'sid=1' } })}\n`,
    )
    await write('report.html', `<html>\n<pre>${openai}</pre>\n</html>`)
    await write('__snapshots__/t.snap', `exports[\`x\`] = \`password=hunter22!\``)
    await write('notes.txt', openai)
    await write('node_modules/pkg/leak.json', JSON.stringify({ k: openai }))
    await write('.git/leak.json', JSON.stringify({ k: openai }))
    await write('.crashlab/runs/r.json', JSON.stringify({ k: openai }))
  })
  afterAll(() => rm(root, { recursive: true, force: true }))

  it('walks folders for the files crashlab writes, skipping dependencies and hidden folders', async () => {
    const report = await scanPaths([root])
    const rel = (f: string) => f.slice(root.length + 1)
    expect(report.files).toBe(7)
    expect(report.findings.map((f) => [rel(f.file), f.pointer, f.line, f.rule])).toEqual([
      ['.crashlab/runs/r.json', '/k', undefined, 'openai-key'],
      ['__cassettes__/a.cassette.json', '/run/steps/0/note', undefined, 'openai-key'],
      ['__snapshots__/t.snap', null, 1, 'secret-assignment'],
      ['broken.json', null, 1, 'openai-key'],
      ['report.html', null, 2, 'openai-key'],
      ['runs.jsonl', '/headers/cookie', 3, 'sensitive-key'],
    ])
    expect(JSON.stringify(report)).not.toContain(openai)
  })

  it('scans a file named explicitly whatever its extension, and refuses a missing path', async () => {
    const report = await scanPaths([join(root, 'notes.txt')])
    expect(report.findings.map((f) => f.rule)).toEqual(['openai-key'])
    await expect(scanPaths([join(root, 'missing')])).rejects.toMatchObject({ code: 'E_FILE_NOT_FOUND' })
  })

  it('formats a report for people, without the secrets', async () => {
    const report = await scanPaths([join(root, '__cassettes__')])
    const text = formatScanReport(report)
    expect(text).toContain('1 possible secret in 1 of 2 files')
    expect(text).toContain('openai-key at /run/steps/0/note')
    expect(text).not.toContain(openai)
    expect(formatScanReport({ files: 3, findings: [] })).toBe('[crashlab] scan: no secrets found in 3 files')
  })
})
