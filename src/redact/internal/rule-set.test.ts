import { describe, expect, it } from 'vitest'
import { createRedactor } from '../create-redactor.ts'
import { hintTrie, presentHints } from './hint-trie.ts'
import { findSensitiveJsonRanges, findSensitiveJsonValues } from './json-key-rules.ts'
import { parsePointer, toPointer } from './json-pointer.ts'
import { applyMatches, compileRules, RuleFailure } from './rule-set.ts'

describe('hint trie', () => {
  it('finds overlapping hints, case-insensitively', () => {
    const hints = ['pass', 'password=', 'sk-', 'sk-ant-', 'key', 'key=']
    const trie = hintTrie(hints)!
    expect([...presentHints(trie, new Set(hints), 'PASSWORD=1 and sk-ant-x')].sort()).toEqual([
      'pass',
      'password=',
      'sk-',
      'sk-ant-',
    ])
    expect([...presentHints(trie, new Set(hints), 'monkey=1')].sort()).toEqual(['key', 'key='])
    expect(presentHints(trie, new Set(hints), 'nothing here').size).toBe(0)
  })
})

describe('compileRules', () => {
  it('runs hinted rules only when a hint occurs, and unhinted rules always', () => {
    const set = compileRules([
      { id: 'acme', pattern: /ACME-\d{4}/, hint: 'acme-' },
      { id: 'any', pattern: /Z{3}/ },
    ])
    expect(set.find('acme-1234 ACME-5678 ZZZ').map((m) => m.rule.id)).toEqual(['acme', 'any'])
    expect(set.find('ACME 5678').map((m) => m.rule.id)).toEqual([])
  })

  it('ignores the sticky flag, which would miss matches after the start', () => {
    const set = compileRules([{ id: 'x', pattern: /X\d/y }])
    expect(set.find('a X1 b X2').length).toBe(2)
  })

  it('merges overlapping matches into their union, named by the one that starts first, then by rule order', () => {
    const set = compileRules([
      { id: 'tail', pattern: /b\d+x/ },
      { id: 'head', pattern: /ab\d/ },
      { id: 'same-start', pattern: /b\d\d/ },
    ])
    const matches = set.find('zab12x!')
    expect(matches.map((m) => [m.rule.id, m.start, m.end])).toEqual([['head', 1, 6]])
    expect(applyMatches('zab12x!', matches)).toBe('z[REDACTED:head]!')
    expect(set.find('zb12x').map((m) => [m.rule.id, m.start, m.end])).toEqual([['tail', 1, 5]])
  })

  it('drops a match whose context begins inside a secret already found', () => {
    const set = compileRules([
      { id: 'token', pattern: /tok_[a-z0-9=]{12}/ },
      { id: 'assignment', pattern: /(?<pre>pwd=)(?<secret>[^\s]+)/ },
    ])
    expect(applyMatches('tok_abcdefpwd=12|', set.find('tok_abcdefpwd=12|'))).toBe('[REDACTED:token]|')
    expect(applyMatches('pwd=hunter2', set.find('pwd=hunter2'))).toBe('pwd=[REDACTED:assignment]')
  })

  it('keeps a match inside a longer one as the longer one, and never matches inside a marker', () => {
    const set = compileRules([
      { id: 'long', pattern: /abc\d+/ },
      { id: 'short', pattern: /c\d/ },
      { id: 'marker', pattern: /REDACTED:long/ },
    ])
    const matches = set.find('abc12')
    expect(matches.map((m) => m.rule.id)).toEqual(['long'])
    const once = applyMatches('abc12', matches)
    expect(once).toBe('[REDACTED:long]')
    expect(set.find(once).map((m) => m.rule.id)).toEqual([])
  })

  it('names the failing rule', () => {
    const set = compileRules(
      [],
      [
        {
          id: 'boom',
          marker: 'x',
          hints: [],
          scan: () => {
            throw new Error('no')
          },
        },
      ],
    )
    expect(() => set.find('text')).toThrow(RuleFailure)
    try {
      set.find('text')
    } catch (err) {
      expect((err as RuleFailure).ruleId).toBe('boom')
    }
  })
})

describe('sensitive keys in JSON text', () => {
  const isSensitive = (k: string) => k === 'api_key'
  it('finds plain and once-escaped values', () => {
    const plain = '{"api_key": "v1\\"x", "other":"v2"}'
    expect(findSensitiveJsonValues(plain, isSensitive).map(([s, e]) => plain.slice(s, e))).toEqual(['v1\\"x'])
    const escaped = JSON.stringify('{"api_key":"v1","other":"v2"}')
    expect(findSensitiveJsonValues(escaped, isSensitive).map(([s, e]) => escaped.slice(s, e))).toEqual(['v1'])
  })
})

describe('sensitive keys in JSON text: the other shapes', () => {
  const isSensitive = (k: string) => ['api_key', 'authorization', 'x-api-key'].includes(k.toLowerCase())
  const slices = (text: string) =>
    findSensitiveJsonRanges(text, isSensitive).map(([s, e, whole]) => [text.slice(s, e), whole])

  it('a number under a sensitive key is a whole value; an object is left to its leaves', () => {
    expect(slices('{"api_key": 123456789, "n": 4}')).toEqual([['123456789', true]])
    expect(slices('{"api_key": {"type": "string"}}')).toEqual([])
  })

  it('a name/value entry, with the name before or after the value', () => {
    expect(slices('[{"name":"X-Api-Key","value":"k1"},{"value":"k2","name":"Authorization"}]')).toEqual([
      ['k1', false],
      ['k2', false],
    ])
    expect(slices('{"name":"accept","value":"json"}')).toEqual([])
  })

  it('a header tuple', () => {
    expect(slices('[["authorization", "Bearer x"], ["accept", "json"]]')).toEqual([['Bearer x', false]])
  })

  it('the redactor writes null for a number, so the text stays JSON', () => {
    const out = createRedactor().redactString('{"password": 12345678, "ok": true}').value
    expect(JSON.parse(out)).toEqual({ password: null, ok: true })
  })
})

describe('JSON Pointer', () => {
  it('round-trips keys with ~ and /', () => {
    const tokens = ['a/b', 'c~d', '', '~1']
    expect(toPointer(tokens)).toBe('/a~1b/c~0d//~01')
    expect(parsePointer(toPointer(tokens))).toEqual(tokens)
    expect(toPointer([])).toBe('')
  })
})
