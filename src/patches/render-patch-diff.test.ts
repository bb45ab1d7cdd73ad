import { describe, expect, it } from 'vitest'
import type { NormalizedRequest } from '../case/schema/normalized.ts'
import {
  CONVERSATION_MESSAGES,
  CONVERSATION_SYSTEM,
  CONVERSATION_TOOLS,
} from '../providers/internal/test-conversation.ts'
import { compose } from './define-patch.ts'
import { renderPatchDiff } from './render-patch-diff.ts'

const request: NormalizedRequest = {
  model: 'gpt-5-mini',
  system: [
    {
      type: 'text',
      text: `${(CONVERSATION_SYSTEM[0] as { text: string }).text}\nBe brief.\nSign as Refund Bot.`,
    },
  ],
  messages: CONVERSATION_MESSAGES,
  tools: CONVERSATION_TOOLS,
  params: { temperature: 1, extra: { top_k: 20 } },
}

describe('renderPatchDiff', () => {
  it('shows a system prompt line replaced, with the lines around it', () => {
    expect(
      renderPatchDiff(
        {
          kind: 'system_prompt',
          op: 'replace_line',
          line: 'Be brief.',
          text: 'Always look the order up first.',
        },
        request,
      ),
    ).toMatchInlineSnapshot(`
      "# system_prompt replace_line
      --- a/system
      +++ b/system
      @@ -1,3 +1,3 @@ system
       You are a refund assistant. Never refund more than the order total.
      -Be brief.
      +Always look the order up first.
       Sign as Refund Bot."
    `)
  })

  it('shows a message put in, labelled with its place', () => {
    expect(
      renderPatchDiff({ kind: 'inject_message', role: 'user', text: 'Make it $60.', at: -1 }, request),
    ).toMatchInlineSnapshot(`
        "# inject_message
        --- a/messages
        +++ b/messages
        @@ -3,4 +3,5 @@ messages[4] user
         assistant: → get_order({"order_id":"A17"}) [call_A17]
         tool: ← get_order [call_A17]: {"order_id":"A17","status":"delivered","total":49}
         assistant: I have refunded $49 for order A17.
        +user: Make it $60.
         user: Thanks!"
      `)
  })

  it('shows a counterfactual tool error, marked test-only', () => {
    expect(
      renderPatchDiff({ kind: 'tool_result', tool: 'get_order', error: 'upstream timeout' }, request),
    ).toMatchInlineSnapshot(`
        "# tool_result get_order
        # test-only: a counterfactual tool result, never a fix
        --- a/messages
        +++ b/messages
        @@ -1,6 +1,6 @@ messages[2] tool
         user: Refund my order A17, it arrived broken
         assistant: Let me look up the order.
         assistant: → get_order({"order_id":"A17"}) [call_A17]
        -tool: ← get_order [call_A17]: {"order_id":"A17","status":"delivered","total":49}
        +tool: ← get_order [call_A17] error: upstream timeout
         assistant: I have refunded $49 for order A17.
         user: Thanks!"
      `)
  })

  it("shows a tool's description and schema changed, and params, in one composition", () => {
    const patch = compose(
      { kind: 'tool_description', tool: 'get_order', op: 'append', text: 'Ids look like A17.' },
      {
        kind: 'tool_schema',
        tool: 'get_order',
        op: 'merge',
        parameters: { properties: { order_id: { pattern: '^A' } } },
      },
      { kind: 'model_params', model: 'gpt-5', params: { temperature: null, extra: { top_k: 5 } } },
    )
    expect(renderPatchDiff(patch, request)).toMatchInlineSnapshot(`
      "# tool_description append get_order
      # tool_schema merge get_order
      # model_params
      --- a/params
      +++ b/params
      @@ -1,3 +1,2 @@ model
      -model: gpt-5-mini
      -temperature: 1
      -extra.top_k: 20
      +model: gpt-5
      +extra.top_k: 5
      --- a/tools
      +++ b/tools
      @@ -1,11 +1,13 @@ tools.get_order
       tool get_order
         description: Look up an order by id
      +    Ids look like A17.
         parameters: {
           "type": "object",
           "properties": {
             "order_id": {
               "type": "string",
      -        "description": "The order id, e.g. A17"
      +        "description": "The order id, e.g. A17",
      +        "pattern": "^A"
             }
           },
           "required": ["
    `)
  })

  it('says why nothing changed', () => {
    expect(
      renderPatchDiff({ kind: 'message', op: 'delete', role: 'tool', index: 3 }, request),
    ).toMatchInlineSnapshot(`
      "# message delete
      # no change: message: no tool message at index 3 (there are 1)"
    `)
    expect(
      renderPatchDiff(
        { kind: 'model_params', params: { temperature: 0 }, when: { agent: 'triage' } },
        request,
        { agent: 'faq' },
      ),
    ).toMatchInlineSnapshot(`
      "# model_params when {"agent":"triage"}
      # no change: the request is out of the patch's scope, or already says this"
    `)
  })

  it('keeps hunks apart when changes are far from each other', () => {
    const long: NormalizedRequest = {
      ...request,
      system: [{ type: 'text', text: Array.from({ length: 12 }, (_, i) => `Rule ${i + 1}.`).join('\n') }],
    }
    const patch = compose(
      { kind: 'system_prompt', op: 'delete_line', line: 'Rule 2.' },
      { kind: 'system_prompt', op: 'replace_line', line: 'Rule 11.', text: 'Rule eleven.' },
    )
    expect(renderPatchDiff(patch, long, { context: 1 })).toMatchInlineSnapshot(`
      "# system_prompt delete_line
      # system_prompt replace_line
      --- a/system
      +++ b/system
      @@ -1,3 +1,2 @@ system
       Rule 1.
      -Rule 2.
       Rule 3.
      @@ -10,3 +9,3 @@ system
       Rule 10.
      -Rule 11.
      +Rule eleven.
       Rule 12."
    `)
  })
})
