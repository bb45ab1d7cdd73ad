import { EventEmitter } from 'node:events'
import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { bind, currentSession, runInSession } from './context.ts'
import { Session } from './session.ts'

describe('the Session follows the agent', () => {
  it('is undefined outside a run and set inside one', () => {
    const session = new Session({ mode: 'record' })
    expect(currentSession()).toBeUndefined()
    expect(runInSession(session, () => currentSession())).toBe(session)
    expect(currentSession()).toBeUndefined()
  })

  it('survives awaits and timers', async () => {
    const session = new Session({ mode: 'record' })
    const seen = await runInSession(session, async () => {
      await new Promise((r) => setTimeout(r, 5))
      return new Promise<Session | undefined>((resolve) => setTimeout(() => resolve(currentSession()), 5))
    })
    expect(seen).toBe(session)
  })

  it('reaches an EventEmitter listener emitted from inside the run', async () => {
    const bus = new EventEmitter()
    const seen: Array<Session | undefined> = []
    bus.on('job', () => seen.push(currentSession()))
    const a = new Session({ mode: 'record' })
    const b = new Session({ mode: 'record' })
    await Promise.all([
      runInSession(a, async () => {
        await new Promise((r) => setTimeout(r, 5))
        bus.emit('job')
      }),
      runInSession(b, async () => bus.emit('job')),
    ])
    expect(seen).toEqual([b, a])
  })

  it('reaches a stream consumer', async () => {
    const session = new Session({ mode: 'record' })
    const seen = await runInSession(session, async () => {
      const out: Array<Session | undefined> = []
      for await (const _ of Readable.from(['a', 'b'])) out.push(currentSession())
      return out
    })
    expect(seen).toEqual([session, session])
  })

  it('bind() carries the Session into a callback run from outside the run', async () => {
    const queue = new EventEmitter()
    const session = new Session({ mode: 'record' })
    const seen: Array<Session | undefined> = []
    runInSession(session, () => {
      queue.on('plain', () => seen.push(currentSession()))
      queue.on(
        'bound',
        bind(() => seen.push(currentSession())),
      )
    })
    // Emitted outside any Session, as a connection pool or queue created before the run would.
    queue.emit('plain')
    queue.emit('bound')
    expect(seen).toEqual([undefined, session])
  })
})
