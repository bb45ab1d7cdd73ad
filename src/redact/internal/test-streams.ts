/**
 * Streamed responses of every wire API crashlab reads, built around text pieces, for the tests of
 * stream redaction: each piece becomes one delta chunk, so a secret can be split wherever a test wants.
 */

export interface TestChunk {
  event?: string
  data: string
  atMs: number
}

export interface TestStream {
  provider: 'openai-chat' | 'openai-responses' | 'anthropic-messages' | 'gemini'
  /** What the pieces are: the answer's text or a tool call's arguments. */
  kind: 'text' | 'tool-args'
  chunks: TestChunk[]
  /** Positions in `chunks` of the pieces' chunks, in order. */
  pieceChunks: number[]
}

type Build = (pieces: readonly string[]) => TestStream

function frame(events: Array<[string | undefined, unknown]>): TestChunk[] {
  return events.map(([event, data], i) => ({
    ...(event ? { event } : {}),
    data: typeof data === 'string' ? data : JSON.stringify(data),
    atMs: i * 10,
  }))
}

const chatHead = { id: 'chatcmpl-9x1', object: 'chat.completion.chunk', created: 1751400000, model: 'gpt-4o' }

const chatText: Build = (pieces) => {
  const events: Array<[undefined, unknown]> = [
    [undefined, { ...chatHead, choices: [{ index: 0, delta: { role: 'assistant', content: '' } }] }],
    ...pieces.map((p): [undefined, unknown] => [
      undefined,
      { ...chatHead, choices: [{ index: 0, delta: { content: p }, finish_reason: null }] },
    ]),
    [undefined, { ...chatHead, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }],
    [undefined, '[DONE]'],
  ]
  return {
    provider: 'openai-chat',
    kind: 'text',
    chunks: frame(events),
    pieceChunks: pieces.map((_, i) => i + 1),
  }
}

const chatTool: Build = (pieces) => {
  const call = (fn: object, extra: object = {}) => ({
    ...chatHead,
    choices: [{ index: 0, delta: { tool_calls: [{ index: 0, ...extra, function: fn }] } }],
  })
  const events: Array<[undefined, unknown]> = [
    [undefined, call({ name: 'save_note', arguments: '' }, { id: 'call_abc', type: 'function' })],
    ...pieces.map((p): [undefined, unknown] => [undefined, call({ arguments: p })]),
    [undefined, { ...chatHead, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] }],
    [undefined, '[DONE]'],
  ]
  return {
    provider: 'openai-chat',
    kind: 'tool-args',
    chunks: frame(events),
    pieceChunks: pieces.map((_, i) => i + 1),
  }
}

function anthropic(kind: TestStream['kind'], pieces: readonly string[]): TestStream {
  const block =
    kind === 'text'
      ? { type: 'text', text: '' }
      : { type: 'tool_use', id: 'toolu_01', name: 'save_note', input: {} }
  const delta = (p: string) =>
    kind === 'text' ? { type: 'text_delta', text: p } : { type: 'input_json_delta', partial_json: p }
  const message = {
    id: 'msg_01',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [],
    stop_reason: null,
    usage: { input_tokens: 10, output_tokens: 1 },
  }
  const events: Array<[string, unknown]> = [
    ['message_start', { type: 'message_start', message }],
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: block }],
    ['ping', { type: 'ping' }],
    ...pieces.map((p): [string, unknown] => [
      'content_block_delta',
      { type: 'content_block_delta', index: 0, delta: delta(p) },
    ]),
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    [
      'message_delta',
      {
        type: 'message_delta',
        delta: { stop_reason: kind === 'text' ? 'end_turn' : 'tool_use' },
        usage: { output_tokens: 20 },
      },
    ],
    ['message_stop', { type: 'message_stop' }],
  ]
  return {
    provider: 'anthropic-messages',
    kind,
    chunks: frame(events),
    pieceChunks: pieces.map((_, i) => i + 3),
  }
}

function responses(kind: TestStream['kind'], pieces: readonly string[]): TestStream {
  const response = { id: 'resp_01', object: 'response', created_at: 1751400000, model: 'gpt-4.1', output: [] }
  const item =
    kind === 'text'
      ? { id: 'msg_01', type: 'message', status: 'in_progress', role: 'assistant', content: [] }
      : {
          id: 'fc_01',
          type: 'function_call',
          status: 'in_progress',
          call_id: 'call_01',
          name: 'save_note',
          arguments: '',
        }
  const deltaType = kind === 'text' ? 'response.output_text.delta' : 'response.function_call_arguments.delta'
  const head: Array<[string, unknown]> = [
    [
      'response.created',
      { type: 'response.created', sequence_number: 0, response: { ...response, status: 'in_progress' } },
    ],
    [
      'response.output_item.added',
      { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item },
    ],
  ]
  if (kind === 'text') {
    head.push([
      'response.content_part.added',
      {
        type: 'response.content_part.added',
        sequence_number: 2,
        item_id: 'msg_01',
        output_index: 0,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [] },
      },
    ])
  }
  const deltas = pieces.map((p, i): [string, unknown] => [
    deltaType,
    {
      type: deltaType,
      sequence_number: head.length + i,
      item_id: item.id,
      output_index: 0,
      ...(kind === 'text' ? { content_index: 0 } : {}),
      delta: p,
      obfuscation: 'q8Zk3Vx9',
    },
  ])
  const tail: Array<[string, unknown]> = [
    [
      'response.completed',
      {
        type: 'response.completed',
        sequence_number: head.length + pieces.length,
        response: {
          ...response,
          status: 'completed',
          usage: { input_tokens: 10, output_tokens: 20, total_tokens: 30 },
        },
      },
    ],
  ]
  return {
    provider: 'openai-responses',
    kind,
    chunks: frame([...head, ...deltas, ...tail]),
    pieceChunks: pieces.map((_, i) => i + head.length),
  }
}

function gemini(kind: TestStream['kind'], pieces: readonly string[]): TestStream {
  // Gemini streams text in pieces; a function call arrives whole, so only text is split.
  const chunk = (text: string, last: boolean) => ({
    candidates: [
      { content: { parts: [{ text }], role: 'model' }, index: 0, ...(last ? { finishReason: 'STOP' } : {}) },
    ],
    modelVersion: 'gemini-2.5-flash',
    responseId: 'mXhzaOmCGNTcnvgP5uWP6Qg',
  })
  const events = pieces.map((p, i): [undefined, unknown] => [undefined, chunk(p, i === pieces.length - 1)])
  return { provider: 'gemini', kind, chunks: frame(events), pieceChunks: pieces.map((_, i) => i) }
}

/**
 * Every stream shape under test: text for the four APIs, and tool-call arguments where the API streams them.
 *
 * @example
 * for (const build of STREAM_BUILDERS) build.build(['my key is sk-pr', 'oj-…']).chunks
 */
export const STREAM_BUILDERS: ReadonlyArray<{ name: string; build: Build }> = [
  { name: 'openai-chat text', build: chatText },
  { name: 'openai-chat tool arguments', build: chatTool },
  { name: 'anthropic text_delta', build: (p) => anthropic('text', p) },
  { name: 'anthropic input_json_delta', build: (p) => anthropic('tool-args', p) },
  { name: 'openai-responses output_text.delta', build: (p) => responses('text', p) },
  { name: 'openai-responses function_call_arguments.delta', build: (p) => responses('tool-args', p) },
  { name: 'gemini parts text', build: (p) => gemini('text', p) },
]

/**
 * `text` cut into `n` pieces, with every cut inside `core` (the part of a secret that must never be
 * written); also returns the pieces of `core` each chunk holds.
 *
 * @example
 * splitAround('key sk-abcdef ok', 'sk-abcdef', 2).pieces // ['key sk-abc', 'def ok']
 */
export function splitAround(
  text: string,
  core: string,
  n: number,
): { pieces: string[]; coreParts: string[] } {
  const at = text.indexOf(core)
  if (at === -1) throw new Error('core not in text')
  const cuts = Array.from({ length: n - 1 }, (_, j) => at + Math.floor((core.length * (j + 1)) / n))
  const bounds = [0, ...cuts, text.length]
  const pieces = bounds.slice(0, -1).map((b, i) => text.slice(b, bounds[i + 1]))
  const coreBounds = [at, ...cuts, at + core.length]
  const coreParts = coreBounds.slice(0, -1).map((b, i) => text.slice(b, coreBounds[i + 1]))
  return { pieces, coreParts }
}
