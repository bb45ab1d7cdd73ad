import { describe, expect, it } from 'vitest'
import { DEFAULT_HOSTS, hostMatcher, hostsKey } from './host-matcher.ts'

const url = (u: string) => new URL(u)

describe('hostMatcher', () => {
  it('matches the three model APIs by default, and nothing else', () => {
    const m = hostMatcher()
    expect(DEFAULT_HOSTS.every((h) => m(url(`https://${h}/v1/x`)))).toBe(true)
    expect(m(url('https://api.example.com/users'))).toBe(false)
    expect(m(url('https://openai.com/'))).toBe(false)
  })

  it('a bare host name matches any port; host:port and base URLs match that port only', () => {
    const m = hostMatcher(['gw.example.com', '127.0.0.1:8787', 'https://Proxy.example.com/v1'])
    expect(m(url('https://gw.example.com:8443/v1'))).toBe(true)
    expect(m(url('http://127.0.0.1:8787/v1/chat/completions'))).toBe(true)
    expect(m(url('http://127.0.0.1:8788/v1/chat/completions'))).toBe(false)
    expect(m(url('https://proxy.example.com/v1/messages'))).toBe(true)
    expect(m(url('http://proxy.example.com/v1/messages'))).toBe(false)
  })

  it('hostsKey is the same for the same hosts in any order or spelling', () => {
    expect(hostsKey(['B.example.com', 'http://a.example.com:80/x'])).toBe(
      hostsKey(['a.example.com:80', 'b.example.com']),
    )
    expect(hostsKey(['a.example.com'])).not.toBe(hostsKey(['a.example.com:80']))
  })
})
