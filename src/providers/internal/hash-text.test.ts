import { describe, expect, it } from 'vitest'
import type { NormalizedRequest } from '../../case/schema/normalized.ts'
import { requestHash } from '../request-hash.ts'
import { CONVERSATION_MESSAGES, CONVERSATION_SYSTEM, CONVERSATION_TOOLS } from './test-conversation.ts'

const base = (): NormalizedRequest =>
  structuredClone({
    model: 'gpt-4o-mini',
    system: CONVERSATION_SYSTEM,
    messages: [
      ...CONVERSATION_MESSAGES,
      {
        role: 'user' as const,
        name: 'alice',
        parts: [
          { type: 'media' as const, mediaType: 'image/png', bytes: 10, ref: 'file_1', sha256: 'ab' },
          { type: 'reasoning' as const, text: 'hmm', opaque: false },
        ],
      },
    ],
    tools: CONVERSATION_TOOLS,
    params: {
      temperature: 0.2,
      maxTokens: 100,
      stop: ['END'],
      extra: { parallel_tool_calls: false, user: 'u1' },
    },
  })

const hash = (n: NormalizedRequest, headers: Record<string, string> = {}) =>
  requestHash({ method: 'POST', url: 'https://api.openai.com/v1/chat/completions', headers, normalized: n })

type Msg = NormalizedRequest['messages'][number]
const part = (n: NormalizedRequest, m: number, p: number) =>
  n.messages[m]!.parts[p] as Record<string, unknown>

// Every field of the normalized request, changed one at a time.
const MUTATIONS: Array<[string, (n: NormalizedRequest) => void]> = [
  [
    'model',
    (n) => {
      n.model = 'gpt-4o'
    },
  ],
  [
    'system text',
    (n) => {
      ;(n.system[0] as { text: string }).text += '!'
    },
  ],
  [
    'message role',
    (n) => {
      ;(n.messages[4] as Msg).role = 'assistant'
    },
  ],
  [
    'message name',
    (n) => {
      ;(n.messages[5] as Msg).name = 'bob'
    },
  ],
  [
    'text',
    (n) => {
      part(n, 0, 0).text = 'Refund A18'
    },
  ],
  [
    'tool_call id',
    (n) => {
      part(n, 1, 1).id = 'call_B'
    },
  ],
  [
    'tool_call name',
    (n) => {
      part(n, 1, 1).name = 'get_user'
    },
  ],
  [
    'tool_call args',
    (n) => {
      part(n, 1, 1).args = { order_id: 'A18' }
    },
  ],
  [
    'tool_call argsText',
    (n) => {
      part(n, 1, 1).argsText = '{"order_id":'
    },
  ],
  [
    'tool_result id',
    (n) => {
      part(n, 2, 0).id = 'x'
    },
  ],
  [
    'tool_result name',
    (n) => {
      part(n, 2, 0).name = 'y'
    },
  ],
  [
    'tool_result content',
    (n) => {
      part(n, 2, 0).content = '{}'
    },
  ],
  [
    'tool_result isError',
    (n) => {
      part(n, 2, 0).isError = true
    },
  ],
  [
    'media type',
    (n) => {
      part(n, 5, 0).mediaType = 'image/jpeg'
    },
  ],
  [
    'media bytes',
    (n) => {
      part(n, 5, 0).bytes = 11
    },
  ],
  [
    'media ref',
    (n) => {
      part(n, 5, 0).ref = 'file_2'
    },
  ],
  [
    'media sha256',
    (n) => {
      part(n, 5, 0).sha256 = 'cd'
    },
  ],
  [
    'reasoning text',
    (n) => {
      part(n, 5, 1).text = 'hm'
    },
  ],
  [
    'reasoning opaque',
    (n) => {
      part(n, 5, 1).opaque = true
    },
  ],
  [
    'tool name',
    (n) => {
      n.tools[0]!.name = 'lookup'
    },
  ],
  [
    'tool description',
    (n) => {
      n.tools[0]!.description = 'Find an order'
    },
  ],
  [
    'tool parameters',
    (n) => {
      n.tools[0]!.parameters = { type: 'object' }
    },
  ],
  [
    'temperature',
    (n) => {
      n.params.temperature = 0.3
    },
  ],
  [
    'maxTokens',
    (n) => {
      n.params.maxTokens = 101
    },
  ],
  [
    'stop',
    (n) => {
      n.params.stop = ['STOP']
    },
  ],
  [
    'seed',
    (n) => {
      n.params.seed = 1
    },
  ],
  [
    'topP',
    (n) => {
      n.params.topP = 0.9
    },
  ],
  [
    'toolChoice',
    (n) => {
      n.params.toolChoice = 'required'
    },
  ],
  [
    'responseFormat',
    (n) => {
      n.params.responseFormat = { type: 'json_object' }
    },
  ],
  [
    'stream',
    (n) => {
      n.params.stream = true
    },
  ],
  [
    'extra',
    (n) => {
      n.params.extra!.parallel_tool_calls = true
    },
  ],
  ['a message more', (n) => void n.messages.push({ role: 'user', parts: [] })],
]

describe('requestHash covers every field of the normalized request', () => {
  const before = hash(base())
  it.each(MUTATIONS)('%s changes the hash', (_, mutate) => {
    const n = base()
    mutate(n)
    expect(hash(n)).not.toBe(before)
  })

  it('ignores volatile params, unhashed headers and the order of keys in free JSON', () => {
    const n = base()
    n.params.extra = { user: 'someone-else', prompt_cache_key: 'k', parallel_tool_calls: false }
    n.tools[0]!.parameters = {
      required: ['order_id'],
      properties: n.tools[0]!.parameters.properties!,
      type: 'object',
    }
    expect(hash(n, { 'x-stainless-retry-count': '2', 'user-agent': 'x' })).toBe(before)
  })

  it('takes the API-version headers, and not the host', () => {
    expect(hash(base(), { 'anthropic-version': '2023-06-01' })).not.toBe(before)
    const other = requestHash({
      method: 'POST',
      url: 'http://localhost:11434/v1/chat/completions/',
      headers: {},
      normalized: base(),
    })
    expect(other).toBe(before)
    const path = requestHash({
      method: 'POST',
      url: 'http://localhost:11434/v2/chat/completions',
      headers: {},
      normalized: base(),
    })
    expect(path).not.toBe(before)
  })
})
