import { describe, expect, expectTypeOf, it } from 'vitest'
import { isCrashlabError } from '../errors.ts'
import { compose, definePatch, leaves } from './define-patch.ts'
import { serializePatch } from './parse-patch.ts'
import {
  injectMessagePatch,
  messagePatch,
  modelParamPatch,
  systemPromptPatch,
  toolDescriptionPatch,
  toolResultPatch,
  toolSchemaPatch,
} from './patch-builders.ts'
import { isTestOnlyPatch, PATCH_KINDS } from './patch-kinds.ts'
import type { ComposePatch, Patch } from './patch-schema.ts'

const append = { kind: 'system_prompt', op: 'append', text: 'Check the total.' } as const
const cold = { kind: 'model_params', params: { temperature: 0 } } as const

describe('definePatch and compose', () => {
  it('keeps the type as written and adds a composition method that stays out of the data', () => {
    const patch = definePatch(append)
    expectTypeOf(patch.text).toEqualTypeOf<'Check the total.'>()
    expect(patch).toEqual(append)
    expect(Object.keys(patch)).toEqual(['kind', 'op', 'text'])
    expect(JSON.parse(JSON.stringify(patch))).toEqual(append)
    expect(serializePatch(patch.andThen(cold), 'yaml')).not.toContain('andThen')
  })

  it('composes in order and flattens compositions', () => {
    const last = { kind: 'inject_message', role: 'user', text: 'Go on.' } as const
    const chained = definePatch(append).andThen(cold).andThen(last)
    expectTypeOf(chained).toMatchTypeOf<ComposePatch>()
    expect(chained).toEqual({ kind: 'compose', patches: [append, cold, last] })
    expect(compose(append, compose(cold, last))).toEqual(chained)
    expect(leaves(chained)).toEqual([append, cold, last])
    expect(leaves(append)).toEqual([append])
  })

  it('can be awaited like any plain value (the method is not `then`)', async () => {
    const patch = definePatch(append)
    expect(await Promise.resolve(patch)).toBe(patch)
  })

  it('throws E_PATCH_INVALID with the path of the bad key', () => {
    let error: unknown
    try {
      definePatch({ kind: 'system_prompt', op: 'append', text: '' })
    } catch (err) {
      error = err
    }
    expect(isCrashlabError(error, 'E_PATCH_INVALID')).toBe(true)
    expect((error as { issues: Array<{ path: string }> }).issues.map((i) => i.path)).toEqual(['$.text'])
  })
})

describe('one helper per kind', () => {
  it('fills in the kind', () => {
    const made: Patch[] = [
      systemPromptPatch({ op: 'delete_line', line: 'Be brief.' }),
      toolDescriptionPatch({ tool: 'get_order', op: 'replace', text: 'Find an order.' }),
      messagePatch({ op: 'delete', role: 'user', index: -1 }),
      injectMessagePatch({ role: 'assistant', text: 'Let me check.', at: -1 }),
      toolResultPatch({ tool: 'get_order', result: { total: 12 } }),
      toolSchemaPatch({ tool: 'get_order', op: 'merge', parameters: { required: null } }),
      modelParamPatch({ model: 'small' }),
    ]
    expect(made.map((p) => p.kind).sort()).toEqual(Object.keys(PATCH_KINDS).sort())
    expect(made.every((p) => typeof (p as { andThen?: unknown }).andThen === 'function')).toBe(true)
  })

  it('marks counterfactual tool results test-only, alone or in a composition', () => {
    const result = toolResultPatch({ callId: 'call_1', error: 'timeout' })
    expect(isTestOnlyPatch(result)).toBe(true)
    expect(isTestOnlyPatch(compose(append, result))).toBe(true)
    expect(isTestOnlyPatch(compose(append, cold))).toBe(false)
    expect(Object.entries(PATCH_KINDS).flatMap(([kind, info]) => (info.testOnly ? [kind] : []))).toEqual([
      'tool_result',
    ])
  })
})

it('helpers narrow the type to the op given', () => {
  const patch = systemPromptPatch({ op: 'replace_line', line: 'Be brief.', text: 'Be thorough.' })
  expectTypeOf(patch.line).toEqualTypeOf<string>()
  expectTypeOf(messagePatch({ op: 'delete', index: 0 }).op).toEqualTypeOf<'delete'>()
  expectTypeOf(toolDescriptionPatch({ tool: 't', op: 'append', text: 'x' })).toMatchTypeOf<{ tool: string }>()
  expect(patch).toEqual({
    kind: 'system_prompt',
    op: 'replace_line',
    line: 'Be brief.',
    text: 'Be thorough.',
  })
})

it('takes array literals as written (const inference stays within the schema types)', () => {
  const stop = definePatch({ kind: 'model_params', params: { stop: ['\n\n'] } })
  const both = definePatch({ kind: 'compose', patches: [append, { kind: 'model_params', model: 'm' }] })
  expect(stop.params.stop).toEqual(['\n\n'])
  expect(both.patches).toHaveLength(2)
})
