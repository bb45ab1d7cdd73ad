import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { NormalizedRequest } from '../src/case/schema/normalized.ts'
import { fork } from '../src/fork/index.ts'
import { installInterceptor, type Run, record } from '../src/index.ts'
import type { Patch } from '../src/patches/index.ts'
import { openStore, type RunStore } from '../src/store/index.ts'
import { type ScriptedProvider, startScriptedProvider } from '../src/testing/index.ts'
import { run as anthropicAgent } from './projects/fork-apis/agent-anthropic.ts'
import { run as geminiAgent } from './projects/fork-apis/agent-gemini.ts'
import { run as chatAgent } from './projects/fork-apis/agent-openai-chat.ts'
import { run as responsesAgent } from './projects/fork-apis/agent-openai-responses.ts'
import { type Api, refundModel, refundRuns } from './projects/fork-apis/shared.ts'
import { copyProject, removeProject } from './projects/run-fixture.ts'

// `fork` for each wire API and each patch kind: the same refund agent (test/projects/fork-apis: a pure
// `get_order` tool and a side-effect `issue_refund` tool whose real runs are counted) on OpenAI Chat
// Completions, OpenAI Responses, Anthropic Messages and Gemini, recorded against the scripted provider
// with a `module` entry point, then forked at step 2 (its second LLM step) with one patch of each kind.
// Parent steps: 0 llm, 1 tool get_order, 2 llm, 3 tool issue_refund, 4 llm.
// Each fork checks the normalized request the provider received (the field the patch changes), that no
// request was sent for the replayed steps, the stored `links`, and that `issue_refund` never ran again.
// `tool_result` applies on every wire; its error form differs by API (see its row).
const AGENTS = {
  'openai-chat': { agent: chatAgent, module: './agent-openai-chat.ts', wire: 'openai-chat' },
  'openai-responses': {
    agent: responsesAgent,
    module: './agent-openai-responses.ts',
    wire: 'openai-responses',
  },
  anthropic: { agent: anthropicAgent, module: './agent-anthropic.ts', wire: 'anthropic-messages' },
  gemini: { agent: geminiAgent, module: './agent-gemini.ts', wire: 'gemini' },
} as const
const APIS = Object.keys(AGENTS) as Api[]

let provider: ScriptedProvider
let project: string
let storeDir: string
let store: RunStore
const parents = new Map<Api, Run>()

beforeAll(async () => {
  provider = await startScriptedProvider({ policy: refundModel })
  project = copyProject('fork-apis')
  storeDir = mkdtempSync(join(tmpdir(), 'crashlab-fork-apis-store-'))
  store = await openStore({ dir: storeDir, config: false })
  const interceptor = installInterceptor({ hosts: [provider.url] })
  try {
    for (const api of APIS) {
      const { agent, module } = AGENTS[api]
      const { run, error } = await record(`refund-bot-${api}`, agent, {
        input: { question: 'My order A17 arrived broken, refund it.', url: provider.url },
        config: false,
        store,
        entryPoint: { kind: 'module', module, export: 'run' },
      })
      if (error) throw error
      parents.set(api, run)
    }
  } finally {
    await interceptor.close()
  }
})
afterAll(async () => {
  store?.close()
  await provider?.close()
  if (project) removeProject(project)
  if (storeDir) rmSync(storeDir, { recursive: true, force: true })
})

describe.each(APIS)('the %s parent', (api) => {
  it('looked the order up, refunded it once, and answered', () => {
    const parent = parents.get(api)!
    expect(parent.steps.map((s) => (s.type === 'tool' ? s.name : s.type))).toEqual([
      'llm',
      'get_order',
      'llm',
      'issue_refund',
      'llm',
    ])
    expect(parent.output).toBe('Done: {"order_id":"A17","refunded":10}')
    expect(refundRuns(api)).toBe(1)
    expect(provider.requests.filter((r) => r.api === AGENTS[api].wire)).toHaveLength(3)
  })
})

// Every fork goes live at step 2, the second LLM step: steps 0 (llm) and 1 (get_order) are served from
// the recording, so the provider sees no request for them.
const AT = 2
const QUESTION = 'My order A17 arrived broken, refund it.'
const POLITE = 'Be polite.'
const NEVER_ABOVE = 'Never above the order total.'

const systemOf = (r: NormalizedRequest) => r.system.map((p) => (p.type === 'text' ? p.text : '')).join('\n')
const textsOf = (r: NormalizedRequest) =>
  r.messages.flatMap((m) =>
    m.parts.flatMap((p) => (p.type === 'text' ? [{ role: m.role, text: p.text }] : [])),
  )
const toolOf = (r: NormalizedRequest, name: string) => r.tools.find((t) => t.name === name)
const resultsOf = (r: NormalizedRequest, id?: string) =>
  r.messages.flatMap((m) =>
    m.parts.flatMap((p) => (p.type === 'tool_result' && (!id || p.id === id) ? [p] : [])),
  )

/** What the fork does after its patched step 2: the same refund (served from the recording), or another. */
type Outcome = 'same' | 'blocked' | 'failed-lookup'

interface Row {
  kind: string
  patch: Patch
  /** Asserts that the normalized request the provider received carries the patch. */
  check: (request: NormalizedRequest, api: Api, path: string) => void
  outcome: Outcome
}

const ROWS: Row[] = [
  {
    kind: 'system_prompt',
    patch: { kind: 'system_prompt', op: 'append', text: POLITE },
    check: (r) => expect(systemOf(r)).toBe(`You are the refund bot.\n${POLITE}`),
    outcome: 'same',
  },
  {
    kind: 'message',
    patch: {
      kind: 'message',
      op: 'substitute',
      role: 'user',
      index: 0,
      find: 'arrived broken',
      replace: 'came damaged',
    },
    check: (r) => {
      expect(textsOf(r)[0]).toEqual({ role: 'user', text: 'My order A17 came damaged, refund it.' })
      expect(textsOf(r).some((t) => t.text === QUESTION)).toBe(false)
    },
    outcome: 'same',
  },
  {
    kind: 'inject_message',
    // Before the assistant's first tool call: right after the question, where every API accepts a user turn.
    patch: { kind: 'inject_message', role: 'user', text: 'Please double-check the total.', at: 1 },
    check: (r) => {
      expect(textsOf(r).slice(0, 2)).toEqual([
        { role: 'user', text: QUESTION },
        { role: 'user', text: 'Please double-check the total.' },
      ])
    },
    outcome: 'same',
  },
  {
    kind: 'tool_result',
    // A counterfactual lookup: the order's total is 4, so the model refunds 4, not the recorded 10.
    patch: {
      kind: 'tool_result',
      tool: 'get_order',
      result: { order_id: 'A17', status: 'broken', total: 4 },
    },
    check: (r) => {
      const [lookup] = resultsOf(r)
      expect(lookup?.isError).toBe(false)
      expect(JSON.parse(lookup!.content)).toEqual({ order_id: 'A17', status: 'broken', total: 4 })
    },
    outcome: 'blocked',
  },
  {
    kind: 'tool_result (error)',
    patch: { kind: 'tool_result', tool: 'get_order', error: 'upstream timeout (504)' },
    check: (r, api) => {
      const [lookup] = resultsOf(r)
      if (api === 'anthropic') {
        // Anthropic has a tool-error flag: `is_error: true` with the message as the content.
        expect(lookup).toMatchObject({ isError: true, content: 'upstream timeout (504)' })
      } else if (api === 'gemini') {
        // Gemini sends `response: { error }`, which reads back as its JSON text with the flag set.
        expect(lookup?.isError).toBe(true)
        expect(JSON.parse(lookup!.content)).toEqual({ error: 'upstream timeout (504)' })
      } else {
        // Neither OpenAI API has an error flag on tool output: the model reads the error as the tool's text.
        expect(lookup).toMatchObject({ isError: false, content: 'upstream timeout (504)' })
      }
    },
    outcome: 'failed-lookup',
  },
  {
    kind: 'tool_description',
    patch: { kind: 'tool_description', tool: 'issue_refund', op: 'append', text: NEVER_ABOVE },
    check: (r) => {
      expect(toolOf(r, 'issue_refund')?.description).toBe(`Refunds an order.\n${NEVER_ABOVE}`)
      expect(toolOf(r, 'get_order')?.description).toBe('Looks an order up.')
    },
    outcome: 'same',
  },
  {
    kind: 'tool_schema',
    patch: {
      kind: 'tool_schema',
      tool: 'issue_refund',
      op: 'merge',
      parameters: { properties: { amount: { type: 'number', maximum: 10 } } },
    },
    check: (r) => {
      expect(toolOf(r, 'issue_refund')?.parameters).toEqual({
        type: 'object',
        properties: { order_id: { type: 'string' }, amount: { type: 'number', maximum: 10 } },
        required: ['order_id', 'amount'],
      })
    },
    outcome: 'same',
  },
  {
    kind: 'model_params',
    patch: { kind: 'model_params', model: 'scripted-2', params: { temperature: 0 } },
    check: (r, api, path) => {
      expect(r.model).toBe('scripted-2')
      expect(r.params.temperature).toBe(0)
      // Gemini names the model in the URL, not the body.
      if (api === 'gemini') expect(path).toContain('/models/scripted-2:generateContent')
    },
    outcome: 'same',
  },
  {
    kind: 'compose',
    patch: {
      kind: 'compose',
      patches: [
        { kind: 'system_prompt', op: 'append', text: POLITE },
        { kind: 'tool_description', tool: 'issue_refund', op: 'append', text: NEVER_ABOVE },
      ],
    },
    check: (r) => {
      expect(systemOf(r)).toBe(`You are the refund bot.\n${POLITE}`)
      expect(toolOf(r, 'issue_refund')?.description).toBe(`Refunds an order.\n${NEVER_ABOVE}`)
    },
    outcome: 'same',
  },
]

const CASES = ROWS.flatMap((row) => APIS.map((api) => ({ ...row, api })))

describe.each(CASES)('fork at step 2 with a $kind patch, $api', ({ api, patch, check, outcome }) => {
  it('patches every live request, sends none before the fork step, stores the link, never refunds again', async () => {
    const parent = parents.get(api)!
    const before = provider.requests.length
    const { run, error, stored } = await fork(store.load(parent.id), {
      atStep: AT,
      patch,
      store,
      cwd: project,
      config: false,
    })
    expect(error).toBeUndefined()
    expect(run.status).toBe('ok')

    // Steps 0 and 1 came from the recording, unchanged; every request the provider got is a live step's.
    expect(run.steps.slice(0, AT)).toEqual(parent.steps.slice(0, AT))
    const live = run.steps.filter((s, i) => i >= AT && s.type === 'llm')
    const sent = provider.requests.slice(before)
    expect(sent).toHaveLength(live.length)
    expect(sent.length).toBeGreaterThan(0)
    for (const r of sent) {
      expect(r.api).toBe(AGENTS[api].wire)
      expect(r.answer?.kind).toBe('reply')
      // The first request sent already carries the lookup's result: it is step 2's, not step 0's.
      expect(resultsOf(r.normalized!).length).toBeGreaterThan(0)
      check(r.normalized!, api, r.path)
    }

    // What the fork did after the patched step.
    const names = run.steps.map((s) => (s.type === 'tool' ? s.name : s.type))
    if (outcome === 'same') {
      // The same refund as the parent's: served from the recording, not run.
      expect(names).toEqual(['llm', 'get_order', 'llm', 'issue_refund', 'llm'])
      expect(run.steps[3]).toMatchObject({ type: 'tool', name: 'issue_refund', result: { refunded: 10 } })
      expect(run.output).toBe(parent.output)
    } else if (outcome === 'blocked') {
      // Another refund: a side-effect tool never runs in a fork, so it is blocked and the agent told.
      expect(names).toEqual(['llm', 'get_order', 'llm', 'issue_refund', 'llm'])
      expect(run.steps[3]).toMatchObject({
        type: 'tool',
        name: 'issue_refund',
        args: { order_id: 'A17', amount: 4 },
        sideEffects: true,
        blocked: true,
        error: { code: 'E_FORK_BLOCKED' },
      })
      expect(run.output).toBe('The refund failed.')
    } else {
      // The lookup "failed": the model gives up before refunding.
      expect(names).toEqual(['llm', 'get_order', 'llm'])
      expect(run.output).toBe('The refund failed.')
    }
    expect(refundRuns(api)).toBe(1)

    // Stored, linked to its parent with the patch.
    const links = { forkedFrom: parent.id, forkStep: AT, patch }
    expect(run.links).toEqual(links)
    expect(stored?.forkedFrom).toBe(parent.id)
    expect(store.load(run.id).links).toEqual(links)
  })
})
