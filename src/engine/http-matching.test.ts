import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadCassette } from '../case/cassette-load.ts'
import { writeCassette } from '../case/cassette-write.ts'
import type { Run } from '../case/schema/run.ts'
import { SECRET_CORPUS } from '../redact/test-corpus.ts'
import { DivergenceError } from './divergence-error.ts'
import { handleExchange } from './handle-exchange.ts'
import { Session } from './session.ts'
import type { MatchingOptions } from './types.ts'

const dir = mkdtempSync(join(tmpdir(), 'crashlab-http-matching-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const BASE = 'https://api.example.com/v1'
const GITHUB_TOKEN = SECRET_CORPUS.find((e) => e.id === 'github-token')!.secret

/** One call as the agent makes it: method, path with query, and a body with its content type. */
interface Call {
  method?: string
  path: string
  json?: unknown
  text?: string
  bytes?: Uint8Array
  type?: string
}

function requestOf(call: Call): Request {
  const body = call.json !== undefined ? JSON.stringify(call.json) : (call.text ?? call.bytes)
  const type = call.type ?? (call.json !== undefined ? 'application/json' : 'text/plain')
  return new Request(`${BASE}${call.path}`, {
    method: call.method ?? (body === undefined ? 'GET' : 'POST'),
    headers: body === undefined ? {} : { 'content-type': type },
    body,
  })
}

const upstream = async (req: Request) => Response.json({ ok: true, path: new URL(req.url).pathname })

/** Records `calls`, round-trips the run through a cassette, and returns what the cassette holds. */
async function record(calls: Call[], matching?: MatchingOptions): Promise<{ run: Run; text: string }> {
  const session = new Session({ mode: 'record', name: 'http', matching })
  for (const call of calls) await handleExchange(session, requestOf(call), upstream)
  const path = join(dir, `${session.run.id}.cassette.json`)
  writeCassette(path, await session.finish({ output: null }), { onWarning: () => {} })
  return { run: loadCassette(path).run, text: readFileSync(path, 'utf8') }
}

/** Replays `calls` over `run`: what each call got (a status or the error), and what finish() threw. */
async function replay(run: Run, calls: Call[], matching?: MatchingOptions) {
  const session = new Session({ mode: 'replay', recorded: run, label: 'http', matching, allowUnused: true })
  const results: unknown[] = []
  for (const call of calls) {
    results.push(
      await handleExchange(session, requestOf(call), () => Promise.reject(new Error('no network'))).then(
        (r) => r.status,
        (e: unknown) => e,
      ),
    )
  }
  const thrown = await session.finish({ output: null }).then(
    () => undefined,
    (e: unknown) => e,
  )
  return { results, thrown: thrown as DivergenceError | undefined, session }
}

const IMAGE = Uint8Array.from({ length: 600 }, (_, i) => (i * 53 + 11) % 256)

describe('replaying calls that are not model calls', () => {
  it('matches a JSON body canonically, and names the body field that changed', async () => {
    const { run } = await record([{ path: '/traces', json: { spans: [{ id: 's1', ms: 12 }], env: 'ci' } }])
    const same = await replay(run, [{ path: '/traces', json: { env: 'ci', spans: [{ ms: 12, id: 's1' }] } }])
    expect(same.results).toEqual([200])
    expect(same.thrown).toBeUndefined()

    const changed = await replay(run, [
      { path: '/traces', json: { spans: [{ id: 's1', ms: 13 }], env: 'ci' } },
    ])
    expect(changed.results[0]).toBe(400)
    expect(changed.thrown).toBeInstanceOf(DivergenceError)
    expect(changed.thrown!.differences).toMatchObject([
      { path: 'body.spans[0].ms', what: 'body field spans[0].ms', recorded: 12, actual: 13 },
    ])
    expect(changed.thrown!.message).toContain('body field spans[0].ms: 12 → 13')
  })

  it('matches on the sha256 of a binary body, and names it when the bytes differ', async () => {
    const upload: Call = { path: '/uploads', bytes: IMAGE, type: 'image/png' }
    const { run } = await record([upload])
    expect((await replay(run, [upload])).thrown).toBeUndefined()

    const other = IMAGE.slice()
    other[100] = (other[100]! + 1) % 256
    const changed = await replay(run, [{ ...upload, bytes: other }])
    expect(changed.results[0]).toBe(400)
    expect(changed.thrown).toBeInstanceOf(DivergenceError)
    const [difference] = changed.thrown!.differences
    expect(difference).toMatchObject({ path: 'bodyFile.sha256', what: 'binary body sha256' })
    expect(changed.thrown!.message).toContain('binary body sha256:')
  })

  it('matches method and path, and a query by parameter, with a secret in it redacted on both sides', async () => {
    const search: Call = { path: `/search?q=refunds&access_token=${GITHUB_TOKEN}&page=2` }
    const { run, text } = await record([search])
    expect(text).not.toContain(GITHUB_TOKEN)
    // The same call, its parameters in another order and its secret as it is live: it matches.
    const same = await replay(run, [{ path: `/search?page=2&access_token=${GITHUB_TOKEN}&q=refunds` }])
    expect(same.thrown).toBeUndefined()

    const changed = await replay(run, [{ path: `/search?q=orders&access_token=${GITHUB_TOKEN}&page=2` }])
    expect(changed.thrown!.differences).toMatchObject([
      { path: 'query.q', what: 'query parameter q', recorded: 'refunds', actual: 'orders' },
    ])
    expect(changed.thrown!.message).not.toContain(GITHUB_TOKEN)

    const method = await replay(run, [{ ...search, method: 'DELETE' }])
    expect(method.thrown!.differences.map((d) => d.what)).toEqual(['method'])
    const path = await replay(run, [{ path: search.path.replace('/search', '/find') }])
    expect(path.thrown!.differences).toMatchObject([
      { what: 'path', recorded: '/v1/search', actual: '/v1/find' },
    ])
  })

  it('matches a text body, and names it when it changed', async () => {
    const { run } = await record([{ path: '/notes', text: 'refund A17' }])
    expect((await replay(run, [{ path: '/notes', text: 'refund A17' }])).thrown).toBeUndefined()
    const changed = await replay(run, [{ path: '/notes', text: 'refund A18' }])
    expect(changed.thrown!.differences).toMatchObject([
      { what: 'body text', recorded: 'refund A17', actual: 'refund A18' },
    ])
  })

  it('leaves the ignoreParams fields out of a JSON body, at record and replay alike', async () => {
    const call = (requestId: string): Call => ({
      path: '/traces',
      json: { span: 's1', request_id: requestId },
    })
    const matching: MatchingOptions = { ignoreParams: ['request_id'] }
    const { run } = await record([call('r-1')], matching)
    // The cassette still holds the field: only matching leaves it out.
    expect(run.steps[0]).toMatchObject({ request: { body: { request_id: 'r-1' } } })
    expect((await replay(run, [call('r-2')], matching)).thrown).toBeUndefined()

    const strict = await replay(run, [call('r-2')])
    expect(strict.thrown!.differences).toMatchObject([{ what: 'body field request_id', actual: 'r-2' }])
    // Only top-level fields: the same name deeper in the body is matched.
    const nested = await replay(
      run,
      [{ path: '/traces', json: { span: 's1', request_id: 'r-1', meta: { request_id: 'x' } } }],
      matching,
    )
    expect(nested.thrown!.differences).toMatchObject([
      { what: 'body field meta', actual: { request_id: 'x' } },
    ])
  })

  it('serves equal calls in recorded order, each once', async () => {
    const { run } = await record([
      { path: '/jobs', json: { n: 1 } },
      { path: '/jobs', json: { n: 1 } },
    ])
    const again = await replay(run, [
      { path: '/jobs', json: { n: 1 } },
      { path: '/jobs', json: { n: 1 } },
      { path: '/jobs', json: { n: 1 } },
    ])
    expect(again.results.slice(0, 2)).toEqual([200, 200])
    expect(again.results[2]).toBe(400)
    expect(again.thrown!.message).toContain('already replayed')
  })
})
