import { closeSync, ftruncateSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { CrashlabError, type ErrorCode } from '../../errors.ts'
import {
  AGENTCASE_MAX_BYTES,
  isAgentCaseText,
  loadAgentCase,
  looksLikeAgentCase,
  parseAgentCase,
  serializeAgentCase,
  validateAgentCase,
} from './index.ts'

const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/agentcase/', import.meta.url))
const read = (name: string) => readFileSync(join(FIXTURES, name))
const valid = () => JSON.parse(read('valid-nonascii-nested.agentcase').toString('utf8'))

function rejection(
  input: string | Uint8Array,
  options?: Parameters<typeof parseAgentCase>[1],
): CrashlabError {
  try {
    parseAgentCase(input, options)
  } catch (err) {
    if (err instanceof CrashlabError) return err
    throw err
  }
  throw new Error('expected parseAgentCase to throw')
}

describe('parseAgentCase: the project fixtures', () => {
  const cases: Array<[file: string, code: ErrorCode, path?: string]> = [
    ['invalid-forward-parent.agentcase', 'E_AGENTCASE_PARENT_ORDER', '$.events[2].parent_event_id'],
    ['invalid-naive-timestamp.agentcase', 'E_AGENTCASE_INVALID', '$.events[2].timestamp'],
    ['invalid-unknown-key-event.agentcase', 'E_AGENTCASE_INVALID', '$.events[1].note'],
    ['invalid-unknown-key-root.agentcase', 'E_AGENTCASE_INVALID', '$.comment'],
    ['invalid-unknown-key-metadata.agentcase', 'E_AGENTCASE_INVALID', '$.metadata.hostname'],
    ['invalid-redaction-none-with-records.agentcase', 'E_AGENTCASE_REDACTION', '$.redaction.status'],
    ['invalid-redaction-redacted-without-records.agentcase', 'E_AGENTCASE_REDACTION', '$.redaction.status'],
    [
      'invalid-mock-replay-live-side-effects.agentcase',
      'E_AGENTCASE_REPLAY',
      '$.replay.live_side_effects_approved',
    ],
    ['invalid-bom.agentcase', 'E_AGENTCASE_MALFORMED'],
    ['invalid-utf8.agentcase', 'E_AGENTCASE_ENCODING'],
    ['invalid-root-array.agentcase', 'E_AGENTCASE_NOT_OBJECT'],
    ['invalid-format-name.agentcase', 'E_AGENTCASE_FORMAT'],
    ['invalid-version-not-string.agentcase', 'E_AGENTCASE_FORMAT'],
  ]
  it.each(cases)('%s → %s', (file, code, path) => {
    const err = rejection(read(file), { source: file })
    expect(err.code).toBe(code)
    expect(err.message).toMatch(/^\[crashlab\] /)
    expect(err.message).toContain(file)
    if (path) expect(err.issues.map((i) => i.path)).toContain(path)
  })

  it('names the BOM and the bad byte in its messages', () => {
    expect(rejection(read('invalid-bom.agentcase')).message).toContain('byte order mark')
    const bytes = read('invalid-utf8.agentcase')
    expect(rejection(bytes).message).toContain(`offset ${bytes.indexOf(0xc3)}`)
  })

  it('reads the valid non-ASCII case and writes it back byte for byte', () => {
    const bytes = read('valid-nonascii-nested.agentcase')
    const c = parseAgentCase(bytes)
    expect(c.events[2]!.payload.output).toHaveProperty(
      'keys',
      expect.objectContaining({ é: 1, '😀': expect.any(String) }),
    )
    expect(Buffer.from(serializeAgentCase(c), 'utf8').equals(bytes)).toBe(true)
    // The same from a string, and from a re-indented copy: readers accept any whitespace.
    expect(serializeAgentCase(parseAgentCase(bytes.toString('utf8')))).toBe(bytes.toString('utf8'))
    expect(serializeAgentCase(parseAgentCase(JSON.stringify(valid(), null, 4)))).toBe(bytes.toString('utf8'))
  })
})

describe('parseAgentCase: the reader order', () => {
  it('refuses an over-size input before parsing it, whatever it holds', () => {
    const big = new Uint8Array(AGENTCASE_MAX_BYTES + 1).fill(0x7b) // "{{{{…": not JSON, but size comes first
    expect(rejection(big).code).toBe('E_AGENTCASE_TOO_LARGE')
    expect(rejection('x'.repeat(AGENTCASE_MAX_BYTES + 1)).code).toBe('E_AGENTCASE_TOO_LARGE')
    // Multi-byte characters count as bytes, not as UTF-16 units.
    expect(rejection('é'.repeat(AGENTCASE_MAX_BYTES / 2 + 1)).code).toBe('E_AGENTCASE_TOO_LARGE')
  })

  it('takes the bound from maxBytes, inclusive', () => {
    const text = read('valid-nonascii-nested.agentcase')
    expect(() => parseAgentCase(text, { maxBytes: text.length })).not.toThrow()
    expect(rejection(text, { maxBytes: text.length - 1 }).code).toBe('E_AGENTCASE_TOO_LARGE')
  })

  it('checks UTF-8 before JSON, JSON before the root, the root before the header', () => {
    expect(rejection(new Uint8Array([0x7b, 0xff, 0x7d])).code).toBe('E_AGENTCASE_ENCODING')
    expect(rejection('{"format_name": "agentcase", \uD800}').code).toBe('E_AGENTCASE_ENCODING')
    expect(rejection('{"format_name": "nope",').code).toBe('E_AGENTCASE_MALFORMED')
    expect(rejection('"agentcase"').code).toBe('E_AGENTCASE_NOT_OBJECT')
    expect(rejection('null').code).toBe('E_AGENTCASE_NOT_OBJECT')
    expect(rejection('{}').code).toBe('E_AGENTCASE_FORMAT')
    expect(rejection('{"format_name":"agentcase"}').code).toBe('E_AGENTCASE_FORMAT')
  })

  it('checks the version before the schema, with the reference message', () => {
    const err = rejection('{"format_name":"agentcase","format_version":"999.0"}')
    expect(err.code).toBe('E_AGENTCASE_VERSION')
    expect(err.message).toContain("unsupported AgentCase format version '999.0'; supported: 0.1")
  })

  it('lists every schema issue with a $ path', () => {
    const c = valid()
    c.events[3].payload = []
    c.events[1].event_id = 'not-a-uuid'
    c.outcome = 'fine'
    delete c.metadata.runtime
    const err = rejection(JSON.stringify(c))
    expect(err.code).toBe('E_AGENTCASE_INVALID')
    expect(err.issues.map((i) => i.path).sort()).toEqual(
      ['$.events[1].event_id', '$.events[3].payload', '$.metadata.runtime', '$.outcome'].sort(),
    )
    expect(err.message).toContain('→ at $.events[3].payload')
  })

  it('runs the event checks in the order of the format', () => {
    const c = valid()
    c.events[2].event_id = c.events[1].event_id // duplicate id …
    c.events[3].sequence = 7 // … and a bad sequence: the id check comes first
    expect(rejection(JSON.stringify(c)).code).toBe('E_AGENTCASE_DUPLICATE_EVENT_ID')
    const d = valid()
    d.events[3].sequence = 7
    d.events[1].parent_event_id = '00000000-0000-4000-8000-00000000dead'
    expect(rejection(JSON.stringify(d)).code).toBe('E_AGENTCASE_SEQUENCE')
  })

  it('treats ids that differ only in case as the same UUID', () => {
    const c = valid()
    c.events[2].event_id = c.events[1].event_id.toUpperCase()
    expect(rejection(JSON.stringify(c)).code).toBe('E_AGENTCASE_DUPLICATE_EVENT_ID')
    const d = valid()
    d.events[2].parent_event_id = d.events[1].parent_event_id.toUpperCase()
    expect(() => parseAgentCase(JSON.stringify(d))).not.toThrow()
  })

  it('refuses an event that is its own parent', () => {
    const c = valid()
    c.events[1].parent_event_id = c.events[1].event_id
    expect(rejection(JSON.stringify(c)).code).toBe('E_AGENTCASE_PARENT_ORDER')
  })

  it('accepts timestamps with an offset and fractions, refuses other shapes', () => {
    const ok = valid()
    ok.events[1].timestamp = '2026-07-14T11:30:01.123456+02:00'
    expect(() => parseAgentCase(JSON.stringify(ok))).not.toThrow()
    for (const bad of ['2026-07-14 09:30:01Z', '2026-07-14', '2026-02-30T00:00:00Z', 1_752_000_000]) {
      const c = valid()
      c.created_at = bad
      expect(rejection(JSON.stringify(c)).issues[0]!.path).toBe('$.created_at')
    }
  })

  it('refuses JSON the rest of crashlab could not carry', () => {
    const c = valid()
    c.events[1].payload.huge = '__HUGE__'
    expect(rejection(JSON.stringify(c).replace('"__HUGE__"', '1e400')).code).toBe('E_AGENTCASE_MALFORMED')
    const d = valid()
    d.extensions.deep = '__DEEP__'
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`
    expect(rejection(JSON.stringify(d).replace('"__DEEP__"', deep)).message).toContain('nested deeper')
  })

  it('uses a default source name when none is given', () => {
    expect(rejection('[]').message).toContain('AgentCase input')
  })
})

describe('validateAgentCase', () => {
  it('validates an object already in memory and returns it typed', () => {
    const c = validateAgentCase(valid())
    expect(c.events.map((e) => e.event_type)).toEqual([
      'execution.start',
      'model.request',
      'model.response',
      'execution.end',
    ])
  })
})

describe('looksLikeAgentCase / isAgentCaseText', () => {
  it('tells an AgentCase (any version) from other JSON', () => {
    expect(looksLikeAgentCase(valid())).toBe(true)
    expect(looksLikeAgentCase({ format_name: 'agentcase', format_version: '999.0' })).toBe(true)
    expect(looksLikeAgentCase({ format: 'crashlab.cassette' })).toBe(false)
    expect(looksLikeAgentCase([valid()])).toBe(false)
    expect(looksLikeAgentCase(null)).toBe(false)
    expect(isAgentCaseText(read('valid-nonascii-nested.agentcase').toString('utf8'))).toBe(true)
    expect(isAgentCaseText('\uFEFF{ "format_name" : "agentcase" }')).toBe(true)
    expect(isAgentCaseText('{"format":"crashlab.cassette","run":{}}')).toBe(false)
    expect(isAgentCaseText('["format_name","agentcase"]')).toBe(false)
  })
})

describe('loadAgentCase', () => {
  const dir = mkdtempSync(join(tmpdir(), 'crashlab-agentcase-load-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('loads a file and names it in errors', () => {
    const path = join(FIXTURES, 'valid-nonascii-nested.agentcase')
    expect(loadAgentCase(path).case_id).toBe('5f0c7a52-8c1e-4d4e-9a47-0d1b6c2e9f10')
    const bad = join(FIXTURES, 'invalid-forward-parent.agentcase')
    expect(() => loadAgentCase(bad)).toThrow(expect.objectContaining({ code: 'E_AGENTCASE_PARENT_ORDER' }))
    expect(() => loadAgentCase(bad)).toThrow(bad)
  })

  it('refuses a huge file from its size, without reading it', () => {
    // A sparse file: 17 MiB on paper, no data blocks. Reading it would be slow; stat is instant.
    const path = join(dir, 'huge.agentcase')
    const fd = openSync(path, 'w')
    ftruncateSync(fd, AGENTCASE_MAX_BYTES + 1024 * 1024)
    closeSync(fd)
    expect(() => loadAgentCase(path)).toThrow(expect.objectContaining({ code: 'E_AGENTCASE_TOO_LARGE' }))
    expect(() => loadAgentCase(path)).toThrow('refused before reading')
  })

  it('says when the file is not there', () => {
    expect(() => loadAgentCase(join(dir, 'missing.agentcase'))).toThrow(
      expect.objectContaining({ code: 'E_FILE_NOT_FOUND' }),
    )
    expect(() => loadAgentCase(dir)).toThrow(expect.objectContaining({ code: 'E_FILE_NOT_FOUND' }))
  })

  it('applies maxBytes to small files too', () => {
    const path = join(dir, 'small.agentcase')
    writeFileSync(path, read('valid-nonascii-nested.agentcase'))
    expect(() => loadAgentCase(path, { maxBytes: 100 })).toThrow(
      expect.objectContaining({ code: 'E_AGENTCASE_TOO_LARGE' }),
    )
  })
})
