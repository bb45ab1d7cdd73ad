import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type CrashlabError, isCrashlabError } from '../errors.ts'
import { definePatch } from './define-patch.ts'
import { anyPatch } from './internal/test-arbitraries.ts'
import { parsePatch, serializePatch } from './parse-patch.ts'

function parseError(input: unknown, source?: string): CrashlabError {
  try {
    parsePatch(input, source)
  } catch (err) {
    if (isCrashlabError(err, 'E_PATCH_INVALID')) return err
    throw err
  }
  throw new Error('expected parsePatch to throw')
}

describe('parsePatch', () => {
  it('reads YAML, JSON text and objects alike', () => {
    const yaml = `kind: system_prompt
op: append
text: |-
  Never refund more than the order total.
  Ask for a photo first.
when:
  systemContains: refund assistant
`
    const expected = {
      kind: 'system_prompt',
      op: 'append',
      text: 'Never refund more than the order total.\nAsk for a photo first.',
      when: { systemContains: 'refund assistant' },
    }
    expect(parsePatch(yaml)).toEqual(expected)
    expect(parsePatch(JSON.stringify(expected))).toEqual(expected)
    expect(parsePatch(expected)).toEqual(expected)
    expect(parsePatch('{kind: model_params, model: gpt-5}')).toEqual({ kind: 'model_params', model: 'gpt-5' })
  })

  it.each<[string, unknown, string, string]>([
    ['an unknown kind', { kind: 'prompt' }, '$.kind', 'unknown patch kind: expected one of system_prompt'],
    [
      'an unknown op',
      { kind: 'system_prompt', op: 'add', text: 'x' },
      '$.op',
      'unknown op: expected one of replace',
    ],
    ['a misspelt key', { kind: 'system_prompt', op: 'append', txt: 'x' }, '$.txt', 'unknown key "txt"'],
    [
      'a wrong type',
      { kind: 'model_params', params: { temperature: 'hot' } },
      '$.params.temperature',
      'expected number',
    ],
    [
      'two anchors',
      { kind: 'system_prompt', op: 'insert', text: 'x', after: 'a', before: 'b' },
      '$.after',
      'exactly one',
    ],
    ['no message named', { kind: 'message', op: 'delete' }, '$.index', 'give `index`, `contains`'],
    [
      'result and error',
      { kind: 'tool_result', tool: 't', result: 1, error: 'e' },
      '$.result',
      'exactly one of',
    ],
    [
      'an empty when',
      { kind: 'inject_message', role: 'user', text: 'x', when: {} },
      '$.when',
      '`when` is empty',
    ],
    [
      'a bad patch inside a composition',
      {
        kind: 'compose',
        patches: [
          { kind: 'model_params', model: 'm' },
          { kind: 'tool_schema', tool: 't', op: 'patch', parameters: {} },
        ],
      },
      '$.patches[1].op',
      'expected one of "replace", "merge"',
    ],
    [
      'a nested composition',
      { kind: 'compose', patches: [{ kind: 'compose', patches: [] }] },
      '$.patches[0].kind',
      'unknown patch kind',
    ],
  ])('names the path of %s', (_, input, path, message) => {
    const err = parseError(input, 'fix.yaml')
    expect(err.issues.map((i) => i.path)).toContain(path)
    expect(err.issues.find((i) => i.path === path)?.message).toContain(message)
    expect(err.message).toMatch(/^\[crashlab\] fix\.yaml is not a valid patch:\n/)
    expect(err.message).toContain(`→ at ${path}`)
    expect(err.subject).toBe('fix.yaml')
  })

  it('says where YAML and JSON text is broken', () => {
    expect(parseError('kind: system_prompt\n  op: : x\n', 'a.yaml').message).toMatch(
      /^\[crashlab\] a\.yaml is not valid YAML: .* at line 1, column 7:\n\nkind: system_prompt\n {6}\^\nFix the syntax/,
    )
    expect(parseError('kind: a\nkind: b\n').message).toContain('not valid YAML')
    expect(parseError('{"kind": ', 'b.json').message).toMatch(/^\[crashlab\] b\.json is not valid JSON \(/)
  })
})

describe('serializePatch', () => {
  it('writes readable YAML, with prompts as block text', () => {
    const patch = definePatch({ kind: 'system_prompt', op: 'replace', text: 'Line one.\nLine two.' })
    expect(serializePatch(patch, 'yaml')).toBe(
      'kind: system_prompt\nop: replace\ntext: |-\n  Line one.\n  Line two.\n',
    )
    expect(serializePatch(patch)).toBe(
      '{\n  "kind": "system_prompt",\n  "op": "replace",\n  "text": "Line one.\\nLine two."\n}\n',
    )
  })

  it('refuses what is not a patch', () => {
    expect(() => serializePatch({ kind: 'nope' } as never)).toThrow(
      /the patch to serialize is not a valid patch/,
    )
  })

  it.each(['json', 'yaml'] as const)('round-trips any patch through %s', (format) => {
    fc.assert(
      fc.property(anyPatch, (patch) => {
        expect(parsePatch(serializePatch(patch, format))).toEqual(patch)
      }),
      { numRuns: 300 },
    )
  })
})
