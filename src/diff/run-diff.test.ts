import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { createRun } from '../case/create-run.ts'
import { asMcpRun } from '../case/internal/test-mcp-run.ts'
import type { JsonValue } from '../case/schema/json.ts'
import type { Run } from '../case/schema/run.ts'
import type { Step } from '../case/schema/step.ts'
import { diffRuns } from './run-diff.ts'
import { formatRunDiff } from './run-diff-format.ts'

// Hand-built runs of a refund agent. An LLM step's request hash is a hash of its normalized request,
// as the engine's is, so a changed prompt changes the hash and nothing else does.
type Spec =
  | { llm: string; system?: string; reply?: string; call?: { name: string; args: JsonValue } }
  | { tool: string; args: JsonValue; result?: JsonValue }
  | { http: string }

const PARENT = '01M8KQ0000RUNDIFF000000001'
const CHILD = '01M8KQ0000RUNDIFF000000002'

// Every build mints new request and tool-call ids, as every recording does.
let minted = 0

function build(specs: readonly Spec[], options: { id?: string; patch?: (run: Run) => void } = {}): Run {
  const run = createRun({ id: options.id ?? PARENT, name: 'refund-bot', startedAt: new Date(0) })
  run.endedAt = new Date(1000 + specs.length * 10).toISOString()
  run.steps = specs.map((s, index) => step(s, index))
  options.patch?.(run)
  return run
}

function step(s: Spec, index: number): Step {
  const base = { index, timing: { startedAt: new Date(index).toISOString(), durationMs: 1 }, error: null }
  if ('tool' in s) {
    return {
      ...base,
      type: 'tool',
      name: s.tool,
      args: s.args,
      result: s.result ?? { ok: true },
      sideEffects: false,
    }
  }
  if ('http' in s) {
    const [method = 'GET', url = ''] = s.http.split(' ')
    const request = { method, url, headers: {}, body: null }
    return {
      ...base,
      type: 'http',
      label: 'models.list',
      request,
      response: { status: 200, headers: {}, body: {} },
    }
  }
  const normalized = {
    model: 'gpt-4o-mini',
    system: [{ type: 'text' as const, text: s.system ?? 'You are a refund agent.' }],
    messages: [{ role: 'user' as const, parts: [{ type: 'text' as const, text: s.llm }] }],
    tools: [],
    params: {},
  }
  const hash = createHash('sha256').update(JSON.stringify(normalized)).digest('hex')
  const toolCalls = s.call ? [{ type: 'tool_call' as const, id: `call_${index}_${++minted}`, ...s.call }] : []
  return {
    ...base,
    type: 'llm',
    provider: 'openai-chat',
    endpoint: 'chat.completions',
    request: {
      wire: { method: 'POST', url: 'http://127.0.0.1:1/v1/chat/completions', headers: {}, body: null },
      normalized,
      requestHash: `sha256:${hash}`,
    },
    response: {
      incomplete: false,
      wire: { status: 200, headers: {}, body: null },
      normalized: {
        model: 'gpt-4o-mini',
        requestId: `req_${index}_${minted}`,
        parts: s.reply ? [{ type: 'text', text: s.reply }] : [],
        toolCalls,
        finishReason: s.call ? 'tool_calls' : 'stop',
        usage: { inputTokens: 10, outputTokens: 2 },
      },
    },
  }
}

const REFUND: Spec[] = [
  { llm: 'Refund A17', call: { name: 'get_order', args: { order_id: 'A17' } } },
  { tool: 'get_order', args: { order_id: 'A17' }, result: { total: 49 } },
  { llm: 'order A17 total 49', call: { name: 'issue_refund', args: { order_id: 'A17', amount: 49 } } },
  { tool: 'issue_refund', args: { order_id: 'A17', amount: 49 } },
  { llm: 'refund ok', reply: 'Your refund of $49 is on its way.' },
]

describe('diffRuns', () => {
  it('identical runs: every step the same, no divergence, nothing changed', () => {
    const d = diffRuns(build(REFUND), build(REFUND, { id: CHILD }))
    expect(d.relation).toBe('unrelated')
    expect(d.alignment.map((r) => r.status)).toEqual(['same', 'same', 'same', 'same', 'same'])
    expect(d.alignment.map((r) => [r.a, r.b])).toEqual([0, 1, 2, 3, 4].map((i) => [i, i]))
    expect(d.alignment[3]?.detail).toBe('tool issue_refund')
    expect(d.firstDivergence).toBeUndefined()
    expect(d.outcome.changed).toBe(false)
    expect(d.steps).toEqual({ a: 5, b: 5 })
    expect(formatRunDiff(d, { color: false })).toContain('no divergence')
  })

  it('a fork at step 3 with a changed system prompt diverges at step 3, at the prompt', () => {
    const parent: Spec[] = [{ http: 'GET http://127.0.0.1:9/v1/models' }, ...REFUND]
    const forked = parent.map((s, i) =>
      i >= 3 && 'llm' in s ? { ...s, system: 'Never refund more than $40.' } : s,
    )
    const child = build(forked, {
      id: CHILD,
      patch: (r) => Object.assign(r.links, { forkedFrom: PARENT, forkStep: 3 }),
    })
    const d = diffRuns(build(parent), child)
    expect(d.relation).toBe('fork')
    expect(d.parent).toBe('a')
    expect(d.forkStep).toBe(3)
    expect(d.alignment.map((r) => r.status)).toEqual([
      'same',
      'same',
      'same',
      'different_request',
      'same',
      'different_request',
    ])
    expect(d.firstDivergence).toMatchObject({ a: 3, b: 3, status: 'different_request' })
    expect(d.firstDivergence?.differences).toEqual([
      {
        path: '$.system[0].text',
        kind: 'value_mismatch',
        expected: 'You are a refund agent.',
        actual: 'Never refund more than $40.',
      },
    ])
    // Seen from the fork: the same relation, the parent on the other side.
    expect(diffRuns(child, build(parent))).toMatchObject({ relation: 'fork', parent: 'b', forkStep: 3 })
    const text = formatRunDiff(d, { color: false })
    expect(text).toContain('B is a fork of A at step 3')
    expect(text).toContain('first divergence: A step 3, B step 3, different request')
    expect(text).toContain(
      '$.system[0].text: expected "You are a refund agent.", got "Never refund more than $40."',
    )
  })

  it('a replay: the relation from links.replayOf, either way round', () => {
    const replay = build(REFUND, { id: CHILD, patch: (r) => Object.assign(r.links, { replayOf: PARENT }) })
    expect(diffRuns(build(REFUND), replay)).toMatchObject({ relation: 'replay', parent: 'a' })
    expect(diffRuns(replay, build(REFUND))).toMatchObject({ relation: 'replay', parent: 'b' })
    expect(diffRuns(replay, replay).relation).toBe('same')
    expect(formatRunDiff(diffRuns(build(REFUND), replay), { color: false })).toContain('B is a replay of A')
  })

  it('a different response to the same request, and a changed tool argument after it', () => {
    const greedy = REFUND.map((s, i) => {
      if (i === 2) return { ...s, call: { name: 'issue_refund', args: { order_id: 'A17', amount: 490 } } }
      if (i === 3) return { tool: 'issue_refund', args: { order_id: 'A17', amount: 490 } }
      return s
    })
    const d = diffRuns(build(REFUND), build(greedy, { id: CHILD }))
    expect(d.alignment.map((r) => r.status)).toEqual([
      'same',
      'same',
      'different_response',
      'different_request',
      'same',
    ])
    expect(d.firstDivergence?.status).toBe('different_response')
    expect(d.firstDivergence?.differences.map((x) => [x.path, x.expected, x.actual])).toEqual([
      ['$.toolCalls[0].args.amount', 49, 490],
    ])
  })

  it('a tool result that changed is a different response, with the field', () => {
    const other = REFUND.map((s, i) => (i === 1 ? { ...s, result: { total: 59 } } : s))
    const d = diffRuns(build(REFUND), build(other, { id: CHILD }))
    expect(d.alignment[1]).toEqual({ a: 1, b: 1, status: 'different_response', detail: 'tool get_order' })
    expect(d.firstDivergence?.differences[0]).toMatchObject({
      path: '$.result.total',
      expected: 49,
      actual: 59,
    })
  })

  it('steps only in A and only in B: a retried model call, a stopped tail', () => {
    const retried: Spec[] = [{ http: 'GET http://127.0.0.1:9/v1/models' }, ...REFUND.slice(0, 3)]
    const d = diffRuns(build(REFUND), build(retried, { id: CHILD }))
    expect(d.alignment).toEqual([
      { b: 0, status: 'only_b', detail: 'http GET /v1/models' },
      { a: 0, b: 1, status: 'same', detail: 'llm gpt-4o-mini' },
      { a: 1, b: 2, status: 'same', detail: 'tool get_order' },
      { a: 2, b: 3, status: 'same', detail: 'llm gpt-4o-mini' },
      { a: 3, status: 'only_a', detail: 'tool issue_refund' },
      { a: 4, status: 'only_a', detail: 'llm gpt-4o-mini' },
    ])
    expect(d.firstDivergence).toEqual({ b: 0, status: 'only_b', differences: [] })
    const text = formatRunDiff(d, { color: false })
    expect(text).toMatch(/^\s+3\s+-\s+only in A\s+tool issue_refund$/m)
    expect(text).toContain('1 only in B')
  })

  it('outcome, check, findings and usage changes side by side', () => {
    const a = build(REFUND, {
      patch: (r) => {
        r.outcome = 'pass'
        r.checks = [
          { name: 'refundNeverExceedsTotal', passed: true },
          { name: 'answers', passed: true },
        ]
        r.usage.inputTokens = 100
      },
    })
    const b = build(REFUND.slice(0, 4), {
      id: CHILD,
      patch: (r) => {
        r.outcome = 'fail'
        r.checks = [
          { name: 'refundNeverExceedsTotal', passed: false },
          { name: 'answers', passed: true },
          { name: 'new', passed: true },
        ]
        r.findings = [{ kind: 'budget', severity: 'warn', steps: [], message: 'm', evidence: [] }]
        r.usage.inputTokens = 250
      },
    })
    const d = diffRuns(a, b)
    expect(d.outcome).toEqual({ a: 'pass', b: 'fail', changed: true })
    expect(d.checks).toEqual([
      { name: 'answers', a: true, b: true, changed: false },
      { name: 'new', b: true, changed: true },
      { name: 'refundNeverExceedsTotal', a: true, b: false, changed: true },
    ])
    expect(d.findings.b.warn).toBe(1)
    expect(d.usage.b.inputTokens).toBe(250)
    expect(d.durationMs).toEqual({ a: 1050, b: 1040 })
    const text = formatRunDiff(d, { color: false })
    expect(text).toMatch(/^outcome\s+pass\s+fail\s+changed$/m)
    expect(text).toMatch(/^input tokens\s+100\s+250\s+\+150$/m)
    expect(text).toContain('≠ refundNeverExceedsTotal: pass → fail')
    expect(text).toContain('≠ new: not run → pass')
    expect(text).toContain('1 unchanged')
  })

  it('a retried call pairs its successful attempt; a reworded-only-by-whitespace reply is the same', () => {
    const first = REFUND[0]!
    const retried: Spec[] = [{ ...first, reply: 'upstream 502' }, first, ...REFUND.slice(1)]
    retried[5] = { llm: 'refund ok', reply: '  Your refund of $49 is on its way.\r\n' }
    const d = diffRuns(build(REFUND), build(retried, { id: CHILD }))
    expect(d.alignment.map((r) => [r.a, r.b, r.status])).toEqual([
      [undefined, 0, 'only_b'],
      [0, 1, 'same'],
      [1, 2, 'same'],
      [2, 3, 'same'],
      [3, 4, 'same'],
      [4, 5, 'same'],
    ])
  })

  it('collapses long stretches of same steps and still aligns runs past the table size', () => {
    const long: Spec[] = Array.from({ length: 12 }, (_, i) => ({ tool: 'search', args: { page: i } }))
    const text = formatRunDiff(diffRuns(build(long), build(long, { id: CHILD })), { color: false })
    expect(text).toContain('10 more same')
    expect(text.split('\n').filter((l) => /tool search/.test(l))).toHaveLength(2)
    // 5,000 × 5,000 different middles exceed the table: the greedy walk still finds every shared step.
    const xs: Spec[] = Array.from({ length: 5000 }, (_, i) => ({ tool: 't', args: { i } }))
    const ys: Spec[] = xs.flatMap((s, i) => (i % 2 ? [s] : [{ tool: 'u', args: { i } }, s]))
    const d = diffRuns(build(xs), build(ys, { id: CHILD }))
    expect(d.alignment.filter((r) => r.status === 'same')).toHaveLength(5000)
    expect(d.alignment.filter((r) => r.status === 'only_b')).toHaveLength(2500)
  })
})

describe('diffRuns: MCP steps', () => {
  // The same agent with its tools on an MCP server, recorded twice: new session id, JSON-RPC ids, timings.
  const first = () => asMcpRun(build(REFUND))
  const again = (server = 'orders-server') =>
    asMcpRun(build(REFUND, { id: CHILD }), server, {
      sessionId: 'ffff0000-0000-4000-8000-00000000beef',
      atMs: 41,
      rpcId: 7,
    })

  it('two recordings of the same MCP calls: every step the same, tool steps by name with their server', () => {
    const d = diffRuns(first(), again())
    expect(d.alignment.map((r) => [r.status, r.detail])).toEqual([
      ['same', 'llm gpt-4o-mini'],
      ['same', 'mcp initialize'],
      ['same', 'mcp notifications/initialized'],
      ['same', 'mcp tools/list'],
      ['same', 'tool get_order (mcp: orders-server)'],
      ['same', 'llm gpt-4o-mini'],
      ['same', 'tool issue_refund (mcp: orders-server)'],
      ['same', 'llm gpt-4o-mini'],
    ])
    expect(d.firstDivergence).toBeUndefined()
  })

  it('a tool on another server is a changed request, at the server', () => {
    const d = diffRuns(first(), again('billing-server'))
    const row = d.alignment.find((r) => r.a === 4)!
    expect(row).toMatchObject({ b: 4, status: 'different_request' })
    expect(row.detail).toBe('tool get_order (mcp: orders-server) → tool get_order (mcp: billing-server)')
  })

  it('an MCP result that changed is a different response, at the field; so is a changed tools/list answer', () => {
    const b = again()
    const refund = b.steps[6]!
    if (refund.type !== 'tool') throw new Error('step 6 is not the refund')
    refund.result = { content: [{ type: 'text', text: 'over the limit' }], isError: true }
    const list = b.steps[3]!
    if (list.type !== 'http' || !list.response?.chunks) throw new Error('step 3 is not tools/list')
    list.response.chunks[0]!.data = JSON.stringify({ jsonrpc: '2.0', id: 7, result: { tools: [] } })
    const d = diffRuns(first(), b)
    expect(d.alignment.filter((r) => r.status !== 'same').map((r) => [r.a, r.status])).toEqual([
      [3, 'different_response'],
      [6, 'different_response'],
    ])
    expect(d.firstDivergence?.differences.map((x) => x.path)).toEqual(['$.answers[0].result.tools'])
  })
})
