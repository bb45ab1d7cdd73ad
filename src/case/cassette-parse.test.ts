import { describe, expect, it } from 'vitest'
import { CrashlabError, type ErrorCode } from '../errors.ts'
import { DEFAULT_MAX_CASSETTE_BYTES, parseCassette } from './cassette-parse.ts'
import { serializeCassette } from './cassette-serialize.ts'
import { createRun } from './create-run.ts'
import { buildRealisticRun, cassetteOf } from './internal/test-runs.ts'

const SOURCE = '__cassettes__/refund.test.ts/refund.cassette.json'
const cassette = cassetteOf(buildRealisticRun({ steps: 4, seed: 7 }))
const text = serializeCassette(cassette)
const bytes = Buffer.from(text)

/** Parses and returns the CrashlabError, failing the test when there is none or it is something else. */
function failure(
  input: string | Uint8Array,
  options: Parameters<typeof parseCassette>[1] = { source: SOURCE },
) {
  try {
    parseCassette(input, options)
  } catch (err) {
    expect(err).toBeInstanceOf(CrashlabError)
    return err as CrashlabError
  }
  throw new Error('expected parseCassette to throw')
}

function expectFailure(input: string | Uint8Array, code: ErrorCode, ...fragments: (string | RegExp)[]) {
  const err = failure(input)
  expect(err.code).toBe(code)
  expect(err.message).toMatch(/^\[crashlab\] /)
  expect(err.message).toContain(SOURCE)
  expect(err.subject).toBe(SOURCE)
  for (const f of fragments) expect(err.message).toMatch(f)
  return err
}

const doc = (patch: Record<string, unknown>) => JSON.stringify({ ...JSON.parse(text), ...patch })

describe('parseCassette', () => {
  it('reads what serializeCassette wrote, from text and from bytes, including a view into a larger buffer', () => {
    expect(parseCassette(text)).toEqual(cassette)
    expect(parseCassette(bytes)).toEqual(cassette)
    const padded = Buffer.concat([Buffer.from('xx'), bytes, Buffer.from('yy')])
    expect(parseCassette(padded.subarray(2, 2 + bytes.length))).toEqual(cassette)
  })

  it('skips a UTF-8 byte order mark', () => {
    expect(parseCassette(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]))).toEqual(cassette)
    expect(parseCassette(`\ufeff${text}`)).toEqual(cassette)
  })

  describe('size', () => {
    it('refuses input over maxBytes, naming the size, the limit and the option that raises it', () => {
      // the default is far above this cassette: only a lowered limit trips it
      expect(bytes.length).toBeLessThan(DEFAULT_MAX_CASSETTE_BYTES)
      for (const input of [bytes, text]) {
        const err = failure(input, { source: SOURCE, maxBytes: 1000 })
        expect(err.code).toBe('E_CASSETTE_TOO_LARGE')
        expect(err.message).toContain(SOURCE)
        expect(err.message).toContain(`(${bytes.length} bytes), over the 1000 B limit (1000 bytes)`)
        expect(err.message).toContain('raise the limit with the `maxBytes` option')
      }
      expect(parseCassette(bytes, { maxBytes: bytes.length })).toEqual(cassette)
    })

    it('counts UTF-8 bytes, not UTF-16 code units, for text', () => {
      const astral = '😀'.repeat(300) // 600 code units, 1200 bytes
      expect(failure(astral, { maxBytes: 1000 }).code).toBe('E_CASSETTE_TOO_LARGE')
      expect(failure(astral, { maxBytes: 1200 }).code).toBe('E_CASSETTE_MALFORMED')
    })

    it('checks the size before anything else', () => {
      expect(failure(Buffer.from([0xff, 0xfe, 0x00]), { maxBytes: 2 }).code).toBe('E_CASSETTE_TOO_LARGE')
    })
  })

  it.each([
    ['a stray 0xFF byte', [0x7b, 0xff, 0x7d]],
    ['an overlong encoding of "/"', [0x22, 0xc0, 0xaf, 0x22]],
    ['an encoded UTF-16 surrogate', [0x22, 0xed, 0xa0, 0x80, 0x22]],
    ['a multi-byte sequence cut short', [0x22, 0xe6, 0x97, 0x22]],
  ])('refuses invalid UTF-8 (%s) as malformed', (_, raw) => {
    expectFailure(Uint8Array.from(raw), 'E_CASSETTE_MALFORMED', /not valid UTF-8/, /--record/)
  })

  describe('JSON syntax', () => {
    it('reports a file cut short, with the line and column of the end', () => {
      const cut = text.slice(0, 200)
      const lines = cut.split('\n')
      const err = expectFailure(cut, 'E_CASSETTE_MALFORMED', /not valid JSON/, /cut short/, /--record/)
      expect(err.message).toMatch(new RegExp(`line ${lines.length}, column \\d+`))
      expect(err.cause).toBeInstanceOf(SyntaxError)
    })

    it('locates an unexpected token even where V8 gives no position', () => {
      const broken = '{\n  "format": "crashlab.cassette",\n  "version": }\n'
      expectFailure(
        broken,
        'E_CASSETTE_MALFORMED',
        /Unexpected token '}' at line 3, column 14 \(character 48\)/,
      )
    })

    it('uses the position V8 states', () => {
      expectFailure('{\n  "a": 1,\n}', 'E_CASSETTE_MALFORMED', /line 3, column 1 \(character 12\)/)
      expectFailure(
        '{"a":1} x',
        'E_CASSETTE_MALFORMED',
        /character after JSON at line 1, column 9 \(character 8\)/,
      )
    })

    it('treats empty input as malformed', () => {
      expectFailure('', 'E_CASSETTE_MALFORMED', /Unexpected end of JSON input/)
    })
  })

  describe('envelope', () => {
    it.each([
      ['an array', '[1, 2]'],
      ['null', 'null'],
      ['a number', '42'],
      ['a string', '"crashlab.cassette"'],
    ])('refuses a top level that is %s', (what, input) => {
      expectFailure(
        input,
        'E_CASSETTE_MALFORMED',
        /not a crashlab cassette/,
        new RegExp(`top level is ${what}`),
      )
    })

    it('refuses an object without the crashlab format marker', () => {
      expectFailure(
        '{"run": {}}',
        'E_CASSETTE_MALFORMED',
        /not a crashlab cassette: it has no "format" field/,
      )
      expectFailure(doc({ format: 'vcr' }), 'E_CASSETTE_MALFORMED', /its "format" is "vcr"/)
    })

    it('points an AgentCase file at the AgentCase reader', () => {
      const agentCase = JSON.stringify({ format_name: 'agentcase', format_version: '0.1', events: [] })
      expectFailure(
        agentCase,
        'E_CASSETTE_MALFORMED',
        /AgentCase file/,
        /loadAgentCase/,
        /npx crashlab inspect/,
      )
    })

    it.each([
      ['missing', { version: undefined }, /has no "version"/],
      ['a string', { version: '1' }, /has "version": "1"/],
      ['a fraction', { version: 1.5 }, /has "version": 1.5/],
    ])('refuses a version that is %s', (_, patch, message) => {
      expectFailure(doc(patch), 'E_CASSETTE_MALFORMED', message, /integer/)
    })
  })

  describe('version', () => {
    it('refuses a newer format version and says to upgrade, naming the crashlab that wrote it', () => {
      const newer = doc({ version: 2, creator: { name: 'crashlab', version: '9.9.9' }, run: 'anything' })
      const err = expectFailure(newer, 'E_CASSETTE_VERSION', /newer crashlab 9\.9\.9/, /format version 2/)
      expect(err.message).toContain('this crashlab reads up to 1): upgrade crashlab')
    })

    it('refuses an older version no migration reaches', () => {
      expectFailure(
        doc({ version: 0 }),
        'E_CASSETTE_VERSION',
        /format version 0/,
        /no migration from version 0/,
      )
    })
  })

  describe('schema', () => {
    it('lists every failing path, naming the file and the next step', () => {
      const bad = JSON.parse(text)
      bad.run.steps[1].type = 'thought'
      bad.run.steps[2].timing.durationMs = -1
      bad.run.status = 'done'
      bad.run.colour = 'blue'
      const err = expectFailure(JSON.stringify(bad), 'E_CASSETTE_INVALID', /--record/, /Fix the named fields/)
      const paths = err.issues.map((i) => i.path)
      expect([...paths].sort()).toEqual(
        ['$.run.colour', '$.run.status', '$.run.steps[1].type', '$.run.steps[2].timing.durationMs'].sort(),
      )
      expect(err.message).toContain('(4 problems)')
      for (const path of paths) expect(err.message).toContain(`→ at ${path}`)
      expect(err.issues.find((i) => i.path === '$.run.colour')?.code).toBe('unrecognized_keys')
    })

    it('reports steps numbered out of order (a check across steps)', () => {
      const bad = JSON.parse(text)
      bad.run.steps[2].index = 9
      const err = expectFailure(JSON.stringify(bad), 'E_CASSETTE_INVALID')
      expect(err.issues).toEqual([
        {
          code: 'custom',
          path: '$.run.steps[2].index',
          message: expect.stringContaining('step 2 says it is step 9'),
        },
      ])
    })

    it('quotes keys that are not identifiers in paths', () => {
      const bad = JSON.parse(text)
      bad.run.steps[0].request.wire.headers['content-type'] = 42
      const err = expectFailure(JSON.stringify(bad), 'E_CASSETTE_INVALID')
      expect(err.issues.map((i) => i.path)).toEqual(["$.run.steps[0].request.wire.headers['content-type']"])
    })

    it('reports an unknown top-level `__proto__` key instead of letting it through', () => {
      const bad = `{"__proto__": {"polluted": true}, ${text.trimStart().slice(1)}`
      const err = expectFailure(bad, 'E_CASSETTE_INVALID')
      expect(err.issues.map((i) => i.path)).toEqual(['$.__proto__'])
      expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    })
  })

  it('checks the version before the schema, and the envelope before the version', () => {
    expect(failure(doc({ version: 5, run: 42 })).code).toBe('E_CASSETTE_VERSION')
    expect(failure(doc({ format: 'x', version: 5 })).code).toBe('E_CASSETTE_MALFORMED')
    expect(failure(doc({ run: 42 })).code).toBe('E_CASSETTE_INVALID')
  })

  it('says "the cassette" when no source is given', () => {
    const err = failure('[]', {})
    expect(err.message).toContain('the cassette is not a crashlab cassette')
    expect(err.subject).toBeUndefined()
  })
})

describe('step numbering', () => {
  it('is checked alongside other problems, so one load names them all', () => {
    const run = createRun({ name: 'numbering' })
    const step = {
      index: 5,
      type: 'tool',
      name: 't',
      args: {},
      sideEffects: false,
      error: null,
      timing: { startedAt: run.startedAt, durationMs: 1 },
    }
    const doc = {
      format: 'crashlab.cassette',
      version: 1,
      creator: { name: 'crashlab', version: '0.1.0' },
      run: { ...run, name: 42, steps: [step] },
    }
    let err: CrashlabError | undefined
    try {
      parseCassette(JSON.stringify(doc))
    } catch (e) {
      err = e as CrashlabError
    }
    expect(err?.code).toBe('E_CASSETTE_INVALID')
    expect(err?.issues.map((i) => i.path)).toEqual(['$.run.name', '$.run.steps[0].index'])
    expect(err?.message).toContain('step 0 says it is step 5')
  })
})

describe('negative zero', () => {
  it('a -0 (or a number that underflows to it) in the file loads as 0, so a write and a load give the same cassette', () => {
    const text = serializeCassette(cassetteOf(buildRealisticRun({ steps: 2, seed: 1 }))).replace(
      '"metadata": {',
      '"metadata": {\n    "a": -0,\n    "b": [-0.0, -1e-400, -2],',
    )
    const cassette = parseCassette(text)
    const metadata = cassette.run.metadata as { a: number; b: number[] }
    expect(Object.is(metadata.a, 0)).toBe(true)
    expect(metadata.b.map((n) => Object.is(n, 0))).toEqual([true, true, false])
    expect(parseCassette(serializeCassette(cassette))).toEqual(cassette)
  })
})
