/**
 * Builds a refund-bot run by hand (two OpenAI chat calls around a `get_order` tool call), then writes it
 * as a crashlab cassette and as a portable AgentCase 0.1 file. Recording fills the same shapes for you;
 * this shows what a cassette holds.
 *
 *   node examples/hand-built-run.ts [out-dir]     (default: __cassettes__/)
 */
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRun, type Run, toAgentCase, writeAgentCase, writeCassette } from '../src/index.ts'

const T0 = Date.parse('2026-11-01T09:00:00.000Z')
const at = (ms: number) => new Date(T0 + ms).toISOString()

/** The example run; fixed ids and times so that the written files are byte-stable. */
export function buildRefundRun(): Run {
  const run = createRun({
    id: '01M8KQ0000REFVNDB0T0000000',
    name: 'refund-bot',
    input: 'Refund my order A17, it arrived broken',
    tags: ['example'],
    entryPoint: { kind: 'module', module: 'examples/hand-built-run.ts', export: 'buildRefundRun' },
    startedAt: new Date(T0),
  })
  const system = 'You are a refund assistant. Never refund more than the order total.'
  const tools = [
    {
      name: 'get_order',
      description: 'Look up an order by id',
      parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
    },
  ]
  const wireTools = tools.map((t) => ({ type: 'function', function: t }))
  const user = { role: 'user' as const, parts: [{ type: 'text' as const, text: run.input as string }] }
  const call = { type: 'tool_call' as const, id: 'call_1', name: 'get_order', args: { order_id: 'A17' } }
  const url = 'https://api.openai.com/v1/chat/completions'
  // The API key is in the header here on purpose: the writer redacts it before anything reaches disk.
  const headers = {
    authorization: 'Bearer sk-proj-EXAMPLEexampleEXAMPLEexample0000',
    'content-type': 'application/json',
  }

  run.steps.push({
    index: 0,
    type: 'llm',
    provider: 'openai-chat',
    endpoint: 'chat.completions',
    timing: { startedAt: at(0), durationMs: 812 },
    error: null,
    request: {
      wire: {
        method: 'POST',
        url,
        headers,
        body: {
          model: 'gpt-4o-mini',
          messages: [
            { role: 'system', content: system },
            { role: 'user', content: run.input },
          ],
          tools: wireTools,
        },
      },
      normalized: {
        model: 'gpt-4o-mini',
        system: [{ type: 'text', text: system }],
        messages: [user],
        tools,
        params: {},
      },
      requestHash: 'sha256:5d1c0f7e0b3a8c2d4e6f8a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d',
    },
    response: {
      incomplete: false,
      wire: {
        status: 200,
        headers: { 'content-type': 'application/json', 'x-request-id': 'req_example_1' },
        body: {
          id: 'chatcmpl-example1',
          object: 'chat.completion',
          model: 'gpt-4o-mini',
          choices: [
            {
              index: 0,
              finish_reason: 'tool_calls',
              message: {
                role: 'assistant',
                content: null,
                tool_calls: [
                  {
                    id: 'call_1',
                    type: 'function',
                    function: { name: 'get_order', arguments: '{"order_id":"A17"}' },
                  },
                ],
              },
            },
          ],
          usage: { prompt_tokens: 61, completion_tokens: 17, total_tokens: 78 },
        },
      },
      normalized: {
        model: 'gpt-4o-mini',
        requestId: 'req_example_1',
        parts: [],
        toolCalls: [call],
        finishReason: 'tool_calls',
        usage: { inputTokens: 61, outputTokens: 17 },
      },
    },
  })
  run.steps.push({
    index: 1,
    type: 'tool',
    name: 'get_order',
    callId: 'call_1',
    args: { order_id: 'A17' },
    result: { order_id: 'A17', total: 49, status: 'delivered' },
    sideEffects: false,
    error: null,
    timing: { startedAt: at(815), durationMs: 4 },
  })
  const answer = 'I have refunded $49 for order A17.'
  run.steps.push({
    index: 2,
    type: 'llm',
    provider: 'openai-chat',
    endpoint: 'chat.completions',
    timing: { startedAt: at(822), durationMs: 640 },
    error: null,
    request: {
      wire: { method: 'POST', url, headers, body: { model: 'gpt-4o-mini', messages: [], tools: wireTools } },
      normalized: {
        model: 'gpt-4o-mini',
        system: [{ type: 'text', text: system }],
        messages: [
          user,
          { role: 'assistant', parts: [call] },
          {
            role: 'tool',
            parts: [
              { type: 'tool_result', id: 'call_1', content: '{"order_id":"A17","total":49}', isError: false },
            ],
          },
        ],
        tools,
        params: {},
      },
      requestHash: 'sha256:9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b',
    },
    response: {
      incomplete: false,
      wire: {
        status: 200,
        headers: { 'content-type': 'text/event-stream' },
        body: null,
        chunks: [
          { data: '{"choices":[{"index":0,"delta":{"content":"I have refunded $49"}}]}', atMs: 210 },
          { data: '{"choices":[{"index":0,"delta":{"content":" for order A17."}}]}', atMs: 380 },
          { data: '{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}', atMs: 395 },
          { data: '[DONE]', atMs: 396 },
        ],
      },
      normalized: {
        model: 'gpt-4o-mini',
        requestId: null,
        parts: [{ type: 'text', text: answer }],
        toolCalls: [],
        finishReason: 'stop',
        usage: null,
      },
    },
  })
  run.status = 'ok'
  run.outcome = 'pass'
  run.output = answer
  run.endedAt = at(1470)
  run.usage = {
    inputTokens: 61,
    outputTokens: 17,
    cachedTokens: 0,
    reasoningTokens: 0,
    llmCalls: 2,
    toolCalls: 1,
  }
  run.checks = [{ name: 'refund-not-above-total', passed: true }]
  return run
}

/** Writes the example's two files into `dir` and returns their paths. */
export function writeExample(dir: string): { cassette: string; agentcase: string } {
  const run = buildRefundRun()
  const cassette = join(dir, 'hand-built-run.cassette.json')
  const agentcase = join(dir, 'hand-built-run.agentcase')
  const written = writeCassette(cassette, run)
  // Runtime and platform pinned: the committed file is the same bytes on every machine and Node version.
  writeAgentCase(
    agentcase,
    toAgentCase(written.run, {
      runtime: { implementation: 'node', python_version: '22' },
      platform: { system: 'Linux', release: 'example', machine: 'x86_64' },
    }),
  )
  return { cassette, agentcase }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = resolve(process.argv[2] ?? join(import.meta.dirname, '..', '__cassettes__'))
  const { cassette, agentcase } = writeExample(out)
  console.log(`wrote ${cassette}\nwrote ${agentcase}`)
}
