import { describe, expect, it } from 'vitest'
import { labelHttpCall } from './labels.ts'
import { classifyRequest } from './registry.ts'

describe('non-model calls on provider hosts', () => {
  it.each([
    ['GET', 'https://api.openai.com/v1/models', 'models.list'],
    ['GET', 'https://api.openai.com/v1/models/gpt-4o-mini', 'models.retrieve'],
    ['GET', 'https://api.anthropic.com/v1/models', 'models.list'],
    ['GET', 'https://generativelanguage.googleapis.com/v1beta/models', 'models.list'],
    ['POST', 'https://api.openai.com/v1/embeddings', 'embeddings.create'],
    [
      'POST',
      'https://generativelanguage.googleapis.com/v1beta/models/text-embedding-004:embedContent',
      'embeddings.create',
    ],
    ['POST', 'https://api.anthropic.com/v1/messages/count_tokens', 'tokens.count'],
    [
      'POST',
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:countTokens',
      'tokens.count',
    ],
    ['POST', 'https://api.openai.com/v1/files', 'files.create'],
    ['POST', 'https://api.openai.com/v1/uploads', 'files.create'],
    ['POST', 'https://api.openai.com/v1/traces/ingest', 'traces.ingest'],
    ['POST', 'https://api.anthropic.com/v1/messages/batches', 'batches'],
    ['GET', 'https://api.openai.com/v1/responses/resp_123', 'responses.retrieve'],
    ['POST', 'https://api.openai.com/v1/moderations', 'moderations.create'],
    ['POST', 'https://api.openai.com/v1/some/new/thing', 'unknown'],
  ])('%s %s is %s, not a model call', (method, url, label) => {
    expect(labelHttpCall({ method, url })).toBe(label)
    expect(classifyRequest({ method, url })).toEqual({ kind: 'http', label })
  })

  it.each([
    ['POST', 'https://api.openai.com/v1/chat/completions', 'openai-chat'],
    ['POST', 'http://localhost:11434/v1/chat/completions', 'openai-chat'],
    ['POST', 'https://api.openai.com/v1/responses', 'openai-responses'],
    ['POST', 'https://api.anthropic.com/v1/messages', 'anthropic-messages'],
    [
      'POST',
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent',
      'gemini',
    ],
    [
      'POST',
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
      'gemini',
    ],
  ])('%s %s is a model call of %s', (method, url, id) => {
    const kind = classifyRequest({ method, url })
    expect(kind.kind === 'llm' && kind.adapter.id).toBe(id)
  })
})
