import { describe, expect, it } from 'vitest'
import type { NormalizedRequest } from '../case/schema/normalized.ts'
import type { Run } from '../case/schema/run.ts'
import type { Step } from '../case/schema/step.ts'
import { CONVERSATION_MESSAGES, CONVERSATION_TOOLS } from '../providers/internal/test-conversation.ts'
import { checkTarget } from './check-target.ts'
import type { Patch } from './patch-schema.ts'

const timing = { startedAt: '2026-11-29T10:00:00.000Z', durationMs: 5 }

function llm(index: number, request: NormalizedRequest): Step {
  return {
    index,
    timing,
    error: null,
    type: 'llm',
    provider: 'openai-chat',
    endpoint: 'chat.completions',
    request: {
      wire: { method: 'POST', url: 'https://api.openai.com/v1/chat/completions', headers: {}, body: {} },
      normalized: request,
      requestHash: `h${index}`,
    },
    response: null,
  }
}

const triage: NormalizedRequest = {
  model: 'gpt-5-mini',
  system: [{ type: 'text', text: 'You are the Triage Agent.\nHand off FAQ questions.' }],
  messages: CONVERSATION_MESSAGES.slice(0, 1),
  tools: [{ name: 'transfer_to_faq', parameters: { type: 'object' } }],
  params: {},
}
const faq: NormalizedRequest = {
  ...triage,
  system: [{ type: 'text', text: 'You are the FAQ Agent.\nAnswer from the FAQ.' }],
  messages: CONVERSATION_MESSAGES,
  tools: CONVERSATION_TOOLS,
}

/** A two-agent run: triage (step 0), a tool call (step 1), the FAQ agent (steps 2 and 3). */
const run: Pick<Run, 'id' | 'name' | 'steps'> = {
  id: '01JRUN',
  name: 'customer-service',
  steps: [
    llm(0, triage),
    {
      index: 1,
      timing,
      error: null,
      type: 'tool',
      name: 'transfer_to_faq',
      args: {},
      result: 'ok',
      sideEffects: false,
    },
    llm(2, faq),
    llm(3, { ...faq, messages: CONVERSATION_MESSAGES.slice(0, 3) }),
  ],
}

describe('checkTarget', () => {
  it('finds the steps whose request a patch changes', () => {
    expect(
      checkTarget({ kind: 'system_prompt', op: 'delete_line', line: 'Answer from the FAQ.' }, run),
    ).toEqual({
      ok: true,
      steps: [2, 3],
    })
    expect(
      checkTarget({ kind: 'tool_description', tool: 'get_order', op: 'append', text: 'x' }, run, {
        fromStep: 3,
      }),
    ).toEqual({
      ok: true,
      steps: [3],
    })
    expect(checkTarget({ kind: 'message', op: 'delete', contains: 'Thanks' }, run)).toEqual({
      ok: true,
      steps: [2],
    })
  })

  it('scopes by `when`: the system prompt an agent has, or the agent the caller names', () => {
    const scoped: Patch = {
      kind: 'system_prompt',
      op: 'append',
      text: 'Answer FAQ questions yourself.',
      when: { systemContains: 'Triage Agent' },
    }
    expect(checkTarget(scoped, run)).toEqual({ ok: true, steps: [0] })
    const byAgent: Patch = { kind: 'model_params', model: 'big', when: { agent: 'triage' } }
    expect(checkTarget(byAgent, run, { agent: 'triage' })).toEqual({ ok: true, steps: [0, 2, 3] })
    const out = checkTarget(byAgent, run)
    expect(out.ok).toBe(false)
    expect(!out.ok && out.error.message).toContain(
      'model_params: no LLM request of the run is in its `when` scope',
    )
  })

  it('is an E_PATCH_TARGET error naming each missing target and the next step', () => {
    const patch: Patch = {
      kind: 'compose',
      patches: [
        {
          kind: 'system_prompt',
          op: 'append',
          text: 'Hand off refunds too.',
          when: { systemContains: 'Triage' },
        },
        {
          kind: 'system_prompt',
          op: 'replace_line',
          line: 'Hand off refunds too.',
          text: 'Hand off refunds.',
        },
        { kind: 'tool_schema', tool: 'issue_refund', op: 'merge', parameters: { required: ['amount'] } },
      ],
    }
    const out = checkTarget(patch, run)
    expect(out.ok).toBe(false)
    if (out.ok) return
    expect(out.steps).toEqual([0])
    expect(out.error.code).toBe('E_PATCH_TARGET')
    expect(out.error.subject).toBe('01JRUN')
    expect(out.error.message).toBe(
      "[crashlab] the patch's target is not in run 01JRUN:\n" +
        '  ✖ patch 3 (tool_schema): no tool named "issue_refund" (tools: transfer_to_faq); no tool named "issue_refund" (tools: get_order)\n' +
        'Look at the requests with `crashlab show 01JRUN` and copy the line, tool or message the patch names.',
    )
  })

  it('fails a run with no LLM request to patch', () => {
    const out = checkTarget({ kind: 'model_params', model: 'm' }, { ...run, steps: [run.steps[1]!] })
    expect(!out.ok && out.error.message).toContain(
      'the run has no LLM request with a normalized form to patch',
    )
  })
})
