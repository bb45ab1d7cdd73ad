import { describe, expect, it } from 'vitest'
import type { NormalizedRequest } from '../case/schema/normalized.ts'
import { isCrashlabError } from '../errors.ts'
import { CONVERSATION_MESSAGES, CONVERSATION_TOOLS } from '../providers/internal/test-conversation.ts'
import { applyPatch } from './apply-patch.ts'
import { compose, definePatch } from './define-patch.ts'
import type { Patch } from './patch-schema.ts'
import type { PatchScope } from './text-edit-schema.ts'

const request: NormalizedRequest = {
  model: 'gpt-5-mini',
  system: [
    {
      type: 'text',
      text: 'You are a refund assistant.\n  Be brief.\nNever refund more than the order total.',
    },
  ],
  messages: CONVERSATION_MESSAGES,
  tools: CONVERSATION_TOOLS,
  params: { temperature: 1, extra: { top_k: 20, reasoning: { effort: 'low' } } },
}
const frozen = structuredClone(request)
const system = (patch: Patch, r = request) =>
  (applyPatch(patch, r).request.system[0] as { text: string }).text

describe('applyPatch: the system prompt', () => {
  it('replaces, appends and prepends', () => {
    expect(system({ kind: 'system_prompt', op: 'replace', text: 'Hi.' })).toBe('Hi.')
    expect(system({ kind: 'system_prompt', op: 'append', text: 'Last.' })).toMatch(/order total\.\nLast\.$/)
    expect(system({ kind: 'system_prompt', op: 'prepend', text: 'First.' })).toMatch(/^First\.\nYou are/)
  })

  it('inserts, replaces and deletes a line, matching it whatever its indentation', () => {
    expect(system({ kind: 'system_prompt', op: 'insert', before: 'Be brief.', text: 'X' })).toBe(
      'You are a refund assistant.\nX\n  Be brief.\nNever refund more than the order total.',
    )
    expect(system({ kind: 'system_prompt', op: 'insert', after: 'Be brief.', text: 'X' })).toContain(
      'Be brief.\nX\n',
    )
    expect(
      system({ kind: 'system_prompt', op: 'replace_line', line: 'Be brief.', text: 'Be thorough.' }),
    ).toBe('You are a refund assistant.\nBe thorough.\nNever refund more than the order total.')
    expect(system({ kind: 'system_prompt', op: 'delete_line', line: 'Be brief.' })).toBe(
      'You are a refund assistant.\nNever refund more than the order total.',
    )
  })

  it('substitutes literal text, every occurrence or only the first', () => {
    const r = { ...request, system: [{ type: 'text' as const, text: 'a.b a.b' }] }
    expect(system({ kind: 'system_prompt', op: 'substitute', find: 'a.b', replace: '$&!' }, r)).toBe(
      '$&! $&!',
    )
    expect(
      system({ kind: 'system_prompt', op: 'substitute', find: 'a.b', replace: 'c', all: false }, r),
    ).toBe('c a.b')
  })

  it('edits a prompt of several blocks block by block, and creates a missing prompt', () => {
    const blocks: NormalizedRequest = {
      ...request,
      system: [
        { type: 'text', text: 'Block one.' },
        { type: 'text', text: 'Block two.' },
      ],
    }
    const patched = (patch: Patch) => applyPatch(patch, blocks).request.system
    expect(patched({ kind: 'system_prompt', op: 'append', text: 'End.' })).toEqual([
      { type: 'text', text: 'Block one.' },
      { type: 'text', text: 'Block two.\nEnd.' },
    ])
    expect(patched({ kind: 'system_prompt', op: 'delete_line', line: 'Block two.' })[1]).toEqual({
      type: 'text',
      text: '',
    })
    expect(patched({ kind: 'system_prompt', op: 'replace', text: 'One.' })).toEqual([
      { type: 'text', text: 'One.' },
    ])
    const none = applyPatch({ kind: 'system_prompt', op: 'append', text: 'New.' }, { ...request, system: [] })
    expect(none.request.system).toEqual([{ type: 'text', text: 'New.' }])
  })

  it('never changes its input, and says when nothing changed', () => {
    const out = applyPatch({ kind: 'system_prompt', op: 'replace', text: 'Hi.' }, request)
    expect(out.changed).toBe(true)
    expect(request).toEqual(frozen)
    const same = applyPatch(
      { kind: 'system_prompt', op: 'replace', text: (request.system[0] as { text: string }).text },
      request,
    )
    expect(same).toMatchObject({ changed: false, missing: [] })
  })
})

describe('applyPatch: messages, tool results, tools and params', () => {
  it('edits the message it names by role, index (negative from the end) and text', () => {
    const m = (patch: Patch) => applyPatch(patch, request).request.messages
    expect(m({ kind: 'message', op: 'replace', role: 'user', index: -1, text: 'Bye' })[4]!.parts).toEqual([
      { type: 'text', text: 'Bye' },
    ])
    const replaced = m({ kind: 'message', op: 'replace', role: 'assistant', index: 0, text: 'Looking.' })[1]!
      .parts
    expect(replaced.map((p) => p.type)).toEqual(['text', 'tool_call'])
    expect(
      m({ kind: 'message', op: 'substitute', contains: 'refunded', find: '49', replace: '40' })[3],
    ).toEqual({
      role: 'assistant',
      parts: [{ type: 'text', text: 'I have refunded $40 for order A17.' }],
    })
    expect(m({ kind: 'message', op: 'delete', contains: 'Thanks' })).toEqual(
      CONVERSATION_MESSAGES.slice(0, 4),
    )
  })

  it('injects a message before the index it names, or at the end', () => {
    const at = (n?: number) =>
      applyPatch(
        { kind: 'inject_message', role: 'user', text: 'Hurry', ...(n === undefined ? {} : { at: n }) },
        request,
      ).request.messages.findIndex((m) => m.parts[0]?.type === 'text' && m.parts[0].text === 'Hurry')
    expect([at(), at(0), at(2), at(-1), at(5)]).toEqual([5, 0, 2, 4, 5])
    expect(applyPatch({ kind: 'inject_message', role: 'user', text: 'x', at: 6 }, request).missing).toEqual([
      'inject_message: no place 6 in a conversation of 5 messages',
    ])
  })

  it('gives a tool a counterfactual result or error', () => {
    const part = (patch: Patch) => applyPatch(patch, request).request.messages[2]!.parts[0]
    expect(part({ kind: 'tool_result', tool: 'get_order', result: { total: 12 } })).toMatchObject({
      content: '{"total":12}',
      isError: false,
    })
    expect(part({ kind: 'tool_result', callId: 'call_A17', nth: -1, error: 'timeout' })).toMatchObject({
      content: 'timeout',
      isError: true,
    })
  })

  it("edits a tool's description and schema", () => {
    const tool = (patch: Patch) => applyPatch(patch, request).request.tools[0]!
    expect(
      tool({ kind: 'tool_description', tool: 'get_order', op: 'substitute', find: 'id', replace: 'number' }),
    ).toMatchObject({ description: 'Look up an order by number' })
    expect(tool({ kind: 'tool_description', tool: 'get_order', op: 'replace', text: '' })).not.toHaveProperty(
      'description',
    )
    const merged = tool({
      kind: 'tool_schema',
      tool: 'get_order',
      op: 'merge',
      parameters: { properties: { order_id: { description: null, pattern: '^A' } }, required: null },
    })
    expect(merged.parameters).toEqual({
      type: 'object',
      properties: { order_id: { type: 'string', pattern: '^A' } },
    })
  })

  it('sets the model and params; null removes one, extra merges by key', () => {
    const out = applyPatch(
      {
        kind: 'model_params',
        model: 'small',
        params: { temperature: null, seed: 7, extra: { top_k: null } },
      },
      request,
    ).request
    expect(out.model).toBe('small')
    expect(out.params).toEqual({ seed: 7, extra: { reasoning: { effort: 'low' } } })
  })
})

describe('applyPatch: composition, scope and missing targets', () => {
  it('applies a composition in order, each patch to what the one before made', () => {
    const a: Patch = { kind: 'system_prompt', op: 'append', text: 'Step A.' }
    const b: Patch = { kind: 'system_prompt', op: 'replace_line', line: 'Step A.', text: 'Step B.' }
    expect(system(compose(a, b))).toMatch(/\nStep B\.$/)
    expect(system(definePatch(a).andThen(b))).toMatch(/\nStep B\.$/)
    const reversed = applyPatch(compose(b, a), request)
    expect((reversed.request.system[0] as { text: string }).text).toMatch(/\nStep A\.$/)
    expect(reversed.missing).toEqual([
      'system_prompt: the system prompt does not contain a line reading "Step A."',
    ])
  })

  it('scopes a patch with `when`: agent, system prompt text, steps', () => {
    const patch = (when?: PatchScope): Patch => ({
      kind: 'model_params',
      params: { temperature: 0 },
      ...(when ? { when } : {}),
    })
    const changed = (p: Patch, ctx = {}) => applyPatch(p, request, ctx).changed
    expect(changed(patch({ agent: 'triage' }), { agent: 'triage' })).toBe(true)
    expect(changed(patch({ agent: 'triage' }), { agent: 'faq' })).toBe(false)
    expect(changed(patch({ agent: 'triage' }))).toBe(false)
    expect(changed(patch({ systemContains: 'refund assistant' }))).toBe(true)
    expect(changed(patch({ systemContains: 'Triage Agent' }))).toBe(false)
    expect(changed(patch({ fromStep: 3, toStep: 5 }), { step: 4 })).toBe(true)
    expect(changed(patch({ fromStep: 3 }), { step: 2 })).toBe(false)
    expect(applyPatch(patch({ agent: 'faq' }), request, { agent: 'x', strict: true }).missing).toEqual([])
  })

  it('leaves the request alone when the target is missing, or throws E_PATCH_TARGET when strict', () => {
    const patch: Patch = { kind: 'tool_schema', tool: 'refund', op: 'replace', parameters: {} }
    const out = applyPatch(patch, request)
    expect(out).toMatchObject({
      changed: false,
      missing: ['tool_schema: no tool named "refund" (tools: get_order)'],
    })
    expect(out.request).toEqual(request)
    let error: unknown
    try {
      applyPatch(patch, request, { strict: true, step: 4 })
    } catch (err) {
      error = err
    }
    expect(isCrashlabError(error, 'E_PATCH_TARGET')).toBe(true)
    expect((error as Error).message).toContain('not in the request of step 4')
  })

  it.each<[Patch, string]>([
    [
      { kind: 'system_prompt', op: 'delete_line', line: 'Be nice.' },
      'does not contain a line reading "Be nice."',
    ],
    [
      { kind: 'message', op: 'replace', role: 'tool', index: 1, text: 'x' },
      'no tool message at index 1 (there are 1)',
    ],
    [{ kind: 'message', op: 'replace', role: 'tool', index: 0, text: 'x' }, 'message 2 has no text to edit'],
    [
      { kind: 'message', op: 'substitute', index: 0, find: 'zzz', replace: 'y' },
      'message 0 does not contain "zzz"',
    ],
    [
      { kind: 'tool_result', tool: 'refund', error: 'x' },
      'no tool result of tool "refund" (there are 0 matching)',
    ],
    [
      { kind: 'tool_description', tool: 'get_order', op: 'delete_line', line: 'x' },
      'description of get_order',
    ],
  ])('names a missing target: %j', (patch, reason) => {
    expect(applyPatch(patch, request).missing.join()).toContain(reason)
  })
})

it('the shared conversation is unchanged by every test above', () => {
  expect(request).toEqual(frozen)
})
