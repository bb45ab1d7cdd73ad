import { describe, expect, it } from 'vitest'
import { isLocalEndpoint } from './local-endpoint.ts'

describe('isLocalEndpoint', () => {
  it.each([
    'http://localhost:8080/v1/chat/completions',
    'http://LOCALHOST/v1/messages',
    'http://api.localhost/v1/messages',
    'http://127.0.0.1:4010/v1/chat/completions',
    'http://127.45.6.7/v1/chat/completions',
    'http://[::1]:4010/v1/chat/completions',
    'http://[::ffff:127.0.0.1]:4010/v1/chat/completions',
    'http://0.0.0.0:8000/v1/chat/completions',
    'http://studio.local:1234/v1/chat/completions',
    'http://10.0.0.5:11434/api/chat',
    'https://ollama.mycorp.net:11434/v1/chat/completions',
  ])('takes %s as local', (url) => {
    expect(isLocalEndpoint(url)).toBe(true)
  })

  it.each([
    'https://api.openai.com/v1/chat/completions',
    'https://localhost.example.com/v1/chat/completions',
    'http://128.0.0.1/v1/chat/completions',
    'http://10.0.0.5:8000/v1/chat/completions',
    'https://api.local-llm.com/v1/chat/completions',
    'not a url',
  ])('does not take %s as local', (url) => {
    expect(isLocalEndpoint(url)).toBe(false)
  })
})
