import { describe, expect, it } from 'vitest'
import type { ToolDefinition } from '../case/schema/normalized.ts'
import type { CheckResult, Run } from '../case/schema/run.ts'
import { heuristicDiagnosis } from './heuristic.ts'
import { type ChatRunOptions, type ChatTurn, chatRun } from './internal/test-chat-run.ts'
import { stem, stemsOf } from './internal/tool-words.ts'
import { findWrongTool } from './internal/wrong-tool.ts'

// The wrong-tool rule (docs/diagnose.md): a tool whose name and description do not fit what was asked, while another
// tool's do, is WRONG_TOOL_SELECTION at the model call that chose it. Each domain here is its own.

const tool = (name: string, description: string | undefined, properties: string[]): ToolDefinition => ({
  name,
  ...(description === undefined ? {} : { description }),
  parameters: {
    type: 'object',
    properties: Object.fromEntries(properties.map((p) => [p, { type: 'string' }])),
    required: properties.slice(0, 1),
  },
})
const failed = (name: string, message: string): CheckResult => ({ name, passed: false, message })
const run = (options: Omit<ChatRunOptions, 'turns'>, ...turns: ChatTurn[]): Run =>
  chatRun({ ...options, turns })
/**
 * The run as an agent that wraps no tool records it, over the Anthropic wire: the model calls only,
 * tool results in user messages.
 */
function modelCallsOnly(r: Run): Run {
  const steps = r.steps
    .filter((s) => s.type === 'llm')
    .map((s, index) => {
      const request = s.request.normalized
      const messages = request?.messages.map((m) => (m.role === 'tool' ? { ...m, role: 'user' as const } : m))
      return {
        ...s,
        index,
        provider: 'anthropic-messages',
        endpoint: 'messages',
        request: { ...s.request, normalized: request && messages ? { ...request, messages } : null },
      }
    })
  return { ...r, steps }
}

/** What the model said along with the tool call of the model call at `index`. */
function say(r: Run, index: number, text: string): void {
  const step = r.steps[index]
  if (step?.type === 'llm') step.response?.normalized?.parts.push({ type: 'text', text })
}

// A subscription service: pause, or end for good.
const SUBSCRIPTIONS = [
  tool('get_subscription', 'Look up a subscription: its plan, price and renewal date', ['subscription_id']),
  tool('pause_subscription', 'Pause billing and deliveries for a number of months', [
    'subscription_id',
    'months',
  ]),
  tool('cancel_subscription', 'End a subscription for good. Refunds nothing.', ['subscription_id']),
]
const PAUSE = 'Please pause my subscription S-2231 for two months while I travel.'
const NOT_PAUSED = [failed('subscription-paused', 'the subscription was not paused')]

// A library: a loan is looked up, renewed, or reported lost.
const LIBRARY = [
  tool('get_loan', 'Look up a library loan and its due date', ['loan_id']),
  tool('renew_loan', 'Extend the due date of a loan by up to three weeks', ['loan_id', 'weeks']),
  tool('report_lost', 'Mark a borrowed item as lost and bill its price', ['loan_id']),
]
const RENEW = 'Renew my loan L-889 for two more weeks'
const NOT_RENEWED = [failed('loan-renewed', 'the loan was not renewed')]

describe('heuristicDiagnosis, the wrong-tool rule: a wrong tool', () => {
  it('a change nothing asked for, where another was asked and never made: at the model call', () => {
    const r = run(
      { user: PAUSE, tools: SUBSCRIPTIONS, checks: NOT_PAUSED },
      {
        call: { name: 'get_subscription', args: { subscription_id: 'S-2231' }, result: { plan: 'monthly' } },
      },
      { call: { name: 'cancel_subscription', args: { subscription_id: 'S-2231' }, result: { ok: true } } },
      { text: 'Done, your subscription is taken care of.' },
    )
    const d = heuristicDiagnosis(r)
    expect(d).toMatchObject({ label: 'WRONG_TOOL_SELECTION', failingStep: 2 })
    expect(d.rootCause).toBe(
      'The model call at step 2 called cancel_subscription, which nothing asked for, where pause_subscription fit what was asked and was never called: the wrong tool.',
    )
    expect(d.evidence).toEqual([{ step: 2, quote: 'call cancel_subscription {"subscription_id":"S-2231"}' }])
  })

  it("the model's own words count for the tool it should have called, and are quoted", () => {
    const r = run(
      {
        user: "I'm away for two months, can you hold my subscription S-2231?",
        tools: SUBSCRIPTIONS,
        checks: [failed('kept', 'subscription S-2231 is gone')],
      },
      { call: { name: 'cancel_subscription', args: { subscription_id: 'S-2231' }, result: { ok: true } } },
      { text: 'Done.' },
    )
    say(r, 0, 'Pausing it for two months.')
    const d = heuristicDiagnosis(r)
    expect(d).toMatchObject({ label: 'WRONG_TOOL_SELECTION', failingStep: 0 })
    expect(d.evidence).toContainEqual({ step: 0, quote: 'assistant: Pausing it for two months.' })
  })

  it('a second look-up, with other arguments, after which the model claims the change it never made', () => {
    const r = run(
      { user: RENEW, tools: LIBRARY, checks: NOT_RENEWED },
      { call: { name: 'get_loan', args: { loan_id: 'L-889' }, result: { due: '2026-12-01' } } },
      {
        call: {
          name: 'get_loan',
          args: { loan_id: 'l-889', include: 'fees' },
          result: { due: '2026-12-01' },
        },
      },
      { text: 'Your loan is renewed for two more weeks.' },
    )
    expect(findWrongTool(r)).toMatchObject({ step: 2, kind: 'read', expected: 'renew_loan' })
    // One look-up and the same claim: the look-up was needed, the change was left undone.
    const once = run(
      { user: RENEW, tools: LIBRARY, checks: NOT_RENEWED },
      { call: { name: 'get_loan', args: { loan_id: 'L-889' }, result: { due: '2026-12-01' } } },
      { text: 'Your loan is renewed for two more weeks.' },
    )
    expect(findWrongTool(once)).toBeNull()
  })

  it('a look-up that comes with words announcing the change', () => {
    const r = run(
      { user: RENEW, tools: LIBRARY, checks: NOT_RENEWED },
      { call: { name: 'get_loan', args: { loan_id: 'L-889' }, result: { due: '2026-12-01' } } },
      {
        call: {
          name: 'get_loan',
          args: { loan_id: 'L-889', include: 'history' },
          result: { due: '2026-12-01' },
        },
      },
      { text: 'Your loan is renewed.' },
    )
    say(r, 2, 'Renewing it for two weeks now.')
    expect(findWrongTool(r)).toMatchObject({
      step: 2,
      kind: 'read',
      because: 'its own words announced renew_loan',
    })
  })

  it('a participle that says what happened is not a request: "was blocked" does not ask for block_card', () => {
    const r = run(
      {
        user: 'Card 4410 was blocked after my trip. Unblock it please.',
        tools: CARDS,
        checks: [failed('card-unblocked', 'card 4410 was not unblocked')],
      },
      { call: { name: 'get_card', args: { card: '4410' }, result: { status: 'blocked' } } },
      { call: { name: 'block_card', args: { card: '4410' }, result: { ok: true } } },
      { text: 'All sorted.' },
    )
    expect(findWrongTool(r)).toMatchObject({
      step: 2,
      tool: 'block_card',
      expected: 'unblock_card',
      kind: 'write',
    })
  })

  it('a wrong tool that then fails is still the wrong tool: the choice came before the failure', () => {
    const r = run(
      { user: PAUSE, tools: SUBSCRIPTIONS, checks: NOT_PAUSED },
      {
        call: {
          name: 'cancel_subscription',
          args: { subscription_id: 'S-2231' },
          error: 'cancellations need a reason',
        },
      },
      { text: 'All set!' },
    )
    expect(heuristicDiagnosis(r)).toMatchObject({ label: 'WRONG_TOOL_SELECTION', failingStep: 0 })
  })

  it('a look-up where a change was asked: the same read again, then a claim of success', () => {
    const r = run(
      { user: RENEW, tools: LIBRARY, checks: NOT_RENEWED },
      { call: { name: 'get_loan', args: { loan_id: 'L-889' }, result: { due: '2026-12-01' } } },
      { call: { name: 'get_loan', args: { loan_id: 'L-889' }, result: { due: '2026-12-01' } } },
      { text: 'Your loan is renewed until mid-December.' },
    )
    expect(findWrongTool(r)).toMatchObject({
      step: 2,
      tool: 'get_loan',
      expected: 'renew_loan',
      kind: 'read',
    })
    const d = heuristicDiagnosis(r)
    expect(d).toMatchObject({ label: 'WRONG_TOOL_SELECTION', failingStep: 2 })
    expect(d.rootCause).toMatch(/it had read the same at step 1/)
  })

  it("a look-up sent with the change's arguments", () => {
    const r = run(
      { user: RENEW, tools: LIBRARY, checks: NOT_RENEWED, status: 'error' },
      { call: { name: 'get_loan', args: { loan_id: 'L-889' }, result: { due: '2026-12-01' } } },
      { call: { name: 'get_loan', args: { loan_id: 'L-889', weeks: '2' }, result: { due: '2026-12-01' } } },
      { text: 'Renewed.' },
    )
    expect(findWrongTool(r)).toMatchObject({ step: 2, kind: 'read', because: "with renew_loan's weeks" })
  })

  it('a hand-off to an agent the request does not fit, where another agent fits it', () => {
    const r = run(
      {
        user: 'I was charged twice on my last invoice, can you sort it out?',
        tools: [
          tool('transfer_to_billing_agent', 'Handles invoices, payment methods and refunds', []),
          tool('transfer_to_tech_support', 'Handles login problems, crashes and bugs in the app', []),
          tool('transfer_to_sales', 'Handles upgrades, quotes and new plans', []),
        ],
        checks: [failed('reached-billing', 'the conversation never reached billing')],
      },
      { call: { name: 'transfer_to_tech_support', args: {}, result: { assistant: 'Tech support' } } },
      { text: 'Tech support will take it from here.' },
    )
    expect(heuristicDiagnosis(r)).toMatchObject({ label: 'WRONG_TOOL_SELECTION', failingStep: 0 })
    expect(findWrongTool(r)).toMatchObject({ kind: 'handoff', expected: 'transfer_to_billing_agent' })
  })

  it('a change where the user only asked a question', () => {
    const r = run(
      {
        user: 'What is the delivery status of parcel P-5521?',
        tools: PARCELS,
        checks: [failed('parcel-untouched', 'parcel P-5521 was redirected')],
      },
      { call: { name: 'track_parcel', args: { parcel_id: 'P-5521' }, result: { status: 'in transit' } } },
      {
        call: {
          name: 'redirect_parcel',
          args: { parcel_id: 'P-5521', address: 'depot' },
          result: { ok: true },
        },
      },
      { text: 'Your parcel is on its way.' },
    )
    expect(findWrongTool(r)).toMatchObject({
      step: 2,
      tool: 'redirect_parcel',
      expected: 'track_parcel',
      kind: 'write-for-read',
    })
    expect(heuristicDiagnosis(r).label).toBe('WRONG_TOOL_SELECTION')
  })

  it('an Anthropic-shaped run whose agent wraps no tool: only the model calls are recorded', () => {
    const r = modelCallsOnly(
      run(
        {
          system: 'You run the front desk of a vet clinic.',
          user: "Can you move Biscuit's check-up V-310 to Friday morning?",
          tools: [
            tool('find_visit', 'Find a visit by its reference', ['visit']),
            tool('book_visit', 'Book a new visit for a pet', ['pet', 'slot']),
            tool('move_visit', 'Move a visit to another slot', ['visit', 'slot']),
          ],
          checks: [failed('visit-moved', 'V-310 was not moved')],
        },
        { call: { name: 'find_visit', args: { visit: 'V-310' }, result: { pet: 'Biscuit' } } },
        {
          call: {
            name: 'book_visit',
            args: { pet: 'Biscuit', slot: 'Friday 09:00' },
            result: { visit: 'V-311' },
          },
        },
        { text: 'Moved to Friday 9:00.' },
      ),
    )
    expect(r.steps.map((s) => s.type)).toEqual(['llm', 'llm', 'llm'])
    expect(heuristicDiagnosis(r)).toMatchObject({ label: 'WRONG_TOOL_SELECTION', failingStep: 1 })
  })

  it('with no tool steps, a read repeated from an earlier model call still gives it away', () => {
    const r = modelCallsOnly(
      run(
        { user: RENEW, tools: LIBRARY, checks: NOT_RENEWED },
        { call: { name: 'get_loan', args: { loan_id: 'L-889' }, result: { due: '2026-12-01' } } },
        { call: { name: 'get_loan', args: { loan_id: 'L-889' }, result: { due: '2026-12-01' } } },
        { text: 'Renewed.' },
      ),
    )
    expect(findWrongTool(r)).toMatchObject({
      step: 1,
      kind: 'read',
      because: 'it had read the same at step 0',
    })
  })

  it('tools named in camelCase, one with no description', () => {
    const r = run(
      {
        user: 'Send invoice INV-301 to the customer again',
        tools: [
          tool('getInvoice', 'Fetch an invoice with its lines', ['invoiceId']),
          tool('sendInvoice', undefined, ['invoiceId', 'email']),
          tool('voidInvoice', 'Void an invoice so it can no longer be paid', ['invoiceId']),
        ],
        checks: [failed('invoiceSent', 'no e-mail went out')],
      },
      { call: { name: 'voidInvoice', args: { invoiceId: 'INV-301' }, result: { voided: true } } },
      { text: 'Done.' },
    )
    expect(findWrongTool(r)).toMatchObject({ step: 0, tool: 'voidInvoice', expected: 'sendInvoice' })
  })
})

// A bank card: look it up, lift a block, or block it.
const CARDS = [
  tool('get_card', 'Look up a card: its status and limits', ['card']),
  tool('unblock_card', 'Lift a block on a card so it works again', ['card']),
  tool('block_card', 'Block a card that was lost or stolen', ['card']),
]

// A parcel carrier.
const PARCELS = [
  tool('track_parcel', 'Where a parcel is: its delivery status and expected date', ['parcel_id']),
  tool('redirect_parcel', 'Send a parcel to another address', ['parcel_id', 'address']),
  tool('cancel_delivery', "Stop a parcel's delivery and send it back", ['parcel_id']),
]

describe('heuristicDiagnosis, the wrong-tool rule: what is not a wrong tool', () => {
  it('a passing run stays NO_FAILURE (rule 1)', () => {
    const r = run(
      { user: PAUSE, tools: SUBSCRIPTIONS, checks: [{ name: 'subscription-paused', passed: true }] },
      { call: { name: 'cancel_subscription', args: { subscription_id: 'S-2231' } } },
      { text: 'Done.' },
    )
    expect(heuristicDiagnosis(r).label).toBe('NO_FAILURE')
  })

  it('the right tool with a value that breaks a rule is a broken rule, not a wrong tool', () => {
    const r = run(
      {
        user: PAUSE,
        tools: SUBSCRIPTIONS,
        checks: [failed('pause-at-most-3-months', 'paused for 6 months')],
      },
      { call: { name: 'pause_subscription', args: { subscription_id: 'S-2231', months: '6' } } },
      { text: 'Paused for six months.' },
    )
    expect(findWrongTool(r)).toBeNull()
    expect(heuristicDiagnosis(r).label).toBe('TASK_SPEC_VIOLATION')
  })

  it('a change the user asked for in their own words is not a wrong tool, whatever else failed', () => {
    const r = run(
      {
        user: 'Cancel my subscription S-2231, I am moving abroad.',
        tools: SUBSCRIPTIONS,
        checks: NOT_PAUSED,
      },
      { call: { name: 'cancel_subscription', args: { subscription_id: 'S-2231' } } },
      { text: 'Cancelled.' },
    )
    expect(findWrongTool(r)).toBeNull()
  })

  it('a look-up and then nothing: a task left undone is not a wrong tool', () => {
    const r = run(
      { user: RENEW, tools: LIBRARY, checks: NOT_RENEWED },
      { call: { name: 'get_loan', args: { loan_id: 'L-889' }, result: { due: '2026-12-01' } } },
      { text: 'Your loan is due on 1 December.' },
    )
    expect(findWrongTool(r)).toBeNull()
  })

  it('a look-up followed by an answer cut at the token limit is left to the other rules', () => {
    const r = run(
      { user: RENEW, tools: LIBRARY, checks: NOT_RENEWED },
      { call: { name: 'get_loan', args: { loan_id: 'L-889' }, result: { due: '2026-12-01' } } },
      { call: { name: 'get_loan', args: { loan_id: 'L-889' }, result: { due: '2026-12-01' } } },
      { text: 'I will now renew the lo' },
    )
    const last = r.steps.at(-1)
    if (last?.type === 'llm' && last.response?.normalized) last.response.normalized.finishReason = 'length'
    expect(findWrongTool(r)).toBeNull()
    // Cut earlier, with the agent asking again after it: still not read.
    const cut = run(
      { user: RENEW, tools: LIBRARY, checks: NOT_RENEWED },
      { call: { name: 'get_loan', args: { loan_id: 'L-889' }, result: { due: '2026-12-01' } } },
      { text: 'I will now renew the lo' },
      { call: { name: 'get_loan', args: { loan_id: 'L-889' }, result: { due: '2026-12-01' } } },
      { text: 'Your loan is renewed.' },
    )
    const cutStep = cut.steps[2]
    if (cutStep?.type === 'llm' && cutStep.response?.normalized)
      cutStep.response.normalized.finishReason = 'length'
    expect(findWrongTool(cut)).toBeNull()
  })

  it('the same look-up again and again is a loop, not a choice', () => {
    const again: ChatTurn = {
      call: { name: 'get_loan', args: { loan_id: 'L-889' }, result: { due: '2026-12-01' } },
    }
    const r = run(
      { user: RENEW, tools: LIBRARY, checks: NOT_RENEWED, status: 'error' },
      again,
      again,
      again,
      again,
    )
    expect(findWrongTool(r)).toBeNull()
  })

  it('a look-up made again that the agent cut short, with no answer after it, is not a choice', () => {
    const again: ChatTurn = {
      call: { name: 'get_loan', args: { loan_id: 'L-889' }, result: { due: '2026-12-01' } },
    }
    const r = run({ user: RENEW, tools: LIBRARY, checks: NOT_RENEWED, status: 'error' }, again, again)
    expect(findWrongTool(r)).toBeNull()
  })

  it('a look-up made again before answering a question is not a read where a write was asked', () => {
    const r = run(
      {
        user: 'Hi! When is my loan L-889 due? I may want to renew it.',
        tools: LIBRARY,
        checks: [failed('answer', 'the due date is not in the answer')],
      },
      { call: { name: 'get_loan', args: { loan_id: 'L-889' }, result: { due: '2026-12-01' } } },
      { call: { name: 'get_loan', args: { loan_id: 'L-889' }, result: { due: '2026-12-01' } } },
      { text: 'It is due soon.' },
    )
    expect(findWrongTool(r)).toBeNull()
  })

  it('a run that ended on a provider failure is the provider’s', () => {
    const r = run(
      { user: RENEW, tools: LIBRARY, checks: NOT_RENEWED, status: 'error' },
      { call: { name: 'get_loan', args: { loan_id: 'L-889' }, result: { due: '2026-12-01' } } },
      { call: { name: 'get_loan', args: { loan_id: 'L-889' }, result: { due: '2026-12-01' } } },
      { status: 503 },
    )
    expect(findWrongTool(r)).toBeNull()
    expect(heuristicDiagnosis(r).label).toBe('EXTERNAL_FAILURE')
  })

  it('a failed tool the fitting tool ran into stays with the failed-tool rule', () => {
    const r = run(
      { user: RENEW, tools: LIBRARY, checks: NOT_RENEWED },
      { call: { name: 'get_loan', args: { loan_id: 'L-889' }, result: { due: '2026-12-01' } } },
      { call: { name: 'renew_loan', args: { loan_id: 'L-889', weeks: '2' }, error: 'ETIMEDOUT' } },
      { text: 'Renewed for two weeks.' },
    )
    expect(heuristicDiagnosis(r)).toMatchObject({ label: 'TOOL_ERROR_MISHANDLED', failingStep: 3 })
  })

  it("a fitting tool the model tried and that failed was chosen: a reply tool after it is the failed-tool rule's", () => {
    const r = run(
      {
        user: RENEW,
        tools: [...LIBRARY, tool('send_reply', 'Send a message to the member', ['text'])],
        checks: NOT_RENEWED,
      },
      { call: { name: 'renew_loan', args: { loan_id: 'L-889', weeks: '2' }, error: 'ETIMEDOUT' } },
      { call: { name: 'send_reply', args: { text: 'Renewed for two weeks.' } } },
      { text: '' },
    )
    expect(findWrongTool(r)).toBeNull()
    expect(heuristicDiagnosis(r)).toMatchObject({ label: 'TOOL_ERROR_MISHANDLED', failingStep: 1 })
  })

  it('a question that names the change itself is not a question only', () => {
    const r = run(
      {
        user: 'What would it cost to redirect parcel P-5521 to the depot?',
        tools: PARCELS,
        checks: [failed('parcel-untouched', 'parcel P-5521 was redirected')],
      },
      { call: { name: 'redirect_parcel', args: { parcel_id: 'P-5521', address: 'depot' } } },
      { text: 'Redirected.' },
    )
    expect(findWrongTool(r)).toBeNull()
  })

  it('a look-up made again after which the model says it was unable to make the change claims nothing', () => {
    const r = run(
      { user: RENEW, tools: LIBRARY, checks: NOT_RENEWED },
      { call: { name: 'get_loan', args: { loan_id: 'L-889' }, result: { due: '2026-12-01' } } },
      {
        call: {
          name: 'get_loan',
          args: { loan_id: 'l-889', include: 'fees' },
          result: { due: '2026-12-01' },
        },
      },
      { text: 'I was unable to renew your loan: it has fees due.' },
    )
    expect(findWrongTool(r)).toBeNull()
  })

  it('a question and a change in the same message is not a question only', () => {
    const r = run(
      {
        user: 'Where is parcel P-5521? Send it to the depot instead.',
        tools: PARCELS,
        checks: [failed('x', 'parcel P-5521 was redirected')],
      },
      { call: { name: 'redirect_parcel', args: { parcel_id: 'P-5521', address: 'depot' } } },
      { text: 'Redirected.' },
    )
    expect(findWrongTool(r)).toBeNull()
  })

  it('a tool only one source speaks for is not enough: the user\'s "send back" alone does not ask for a shipment', () => {
    const r = run(
      {
        user: 'I want to send back the blender from order 5512',
        tools: [
          tool('lookup_order', 'Find an order and its items', ['order_id']),
          tool('process_return', 'Start a return for one item of an order', ['order_id', 'item']),
          tool('ship_replacement', 'Send a replacement item to the customer', ['order_id', 'item']),
        ],
        checks: [failed('right-item', 'item 2 is the toaster')],
      },
      { call: { name: 'process_return', args: { order_id: '5512', item: '2' } } },
      { text: 'Your return is on its way.' },
    )
    expect(findWrongTool(r)).toBeNull()
  })

  it('a change where the user asked a question is not named unless a failed check says it should not have happened', () => {
    const r = run(
      {
        user: 'What is the delivery status of parcel P-5521?',
        tools: PARCELS,
        checks: [failed('answered', 'the answer gives no date')],
      },
      { call: { name: 'track_parcel', args: { parcel_id: 'P-5521' }, result: { status: 'in transit' } } },
      {
        call: {
          name: 'redirect_parcel',
          args: { parcel_id: 'P-5521', address: 'depot' },
          result: { ok: true },
        },
      },
      { text: 'Your parcel is on its way.' },
    )
    expect(findWrongTool(r)).toBeNull()
  })

  it('a step the system prompt asks for is not a wrong tool, even when the next step never came', () => {
    const r = run(
      {
        system:
          'You handle repair requests. Open a job with open_job, then text the customer with notify_customer.',
        user: 'My washing machine leaks, address 4 Quay Street',
        tools: [
          tool('get_customer', 'Look up a customer by address', ['address']),
          tool('open_job', 'Open a repair job for a technician', ['address', 'fault']),
          tool('notify_customer', 'Text the customer the date of the visit', ['job']),
        ],
        checks: [failed('customer-notified', 'the customer was not notified')],
      },
      {
        call: { name: 'open_job', args: { address: '4 Quay Street', fault: 'leak' }, result: { job: 'J-1' } },
      },
      { text: 'A technician will come.' },
    )
    expect(findWrongTool(r)).toBeNull()
  })

  it('with one tool there is nothing to choose from', () => {
    const r = run(
      { user: PAUSE, tools: SUBSCRIPTIONS.slice(2), checks: NOT_PAUSED },
      { call: { name: 'cancel_subscription', args: { subscription_id: 'S-2231' } } },
      { text: 'Done.' },
    )
    expect(findWrongTool(r)).toBeNull()
  })
})

describe('the words the rule compares', () => {
  it('stems forms of one word alike', () => {
    expect(new Set(['invite', 'invites', 'invitation', 'invited'].map(stem))).toEqual(new Set(['invit']))
    expect(new Set(['cancel', 'cancelled', 'canceled', 'cancellation'].map(stem))).toEqual(
      new Set(['cancel']),
    )
    expect(stem('sent')).toBe(stem('send'))
  })

  it('leaves out what is negated and what only says what happened', () => {
    expect(stemsOf('Do not cancel bookings. Rebook the passenger.', { negation: true })).toEqual(
      new Set(['rebook', 'passenger']),
    )
    expect(stemsOf('My flight was cancelled, I want it refunded', { asked: true })).toEqual(
      new Set(['flight', 'refund']),
    )
  })
})
