import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { cassetteFilesDir } from '../case/cassette-binaries.ts'
import { loadCassette } from '../case/cassette-load.ts'
import { writeCassette } from '../case/cassette-write.ts'
import type { HttpStep } from '../case/schema/step.ts'
import { handleExchange } from './handle-exchange.ts'
import { isBinaryMediaType } from './internal/binary-body.ts'
import { Session } from './session.ts'

const dir = mkdtempSync(join(tmpdir(), 'crashlab-engine-binaries-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const SPEECH = Uint8Array.from({ length: 3000 }, (_, i) => (i * 131 + 7) % 256)
const IMAGE = Uint8Array.from({ length: 1500 }, (_, i) => (i * 37 + 200) % 256)
const URL_SPEECH = 'https://api.openai.com/v1/audio/speech'
const URL_UPLOAD = 'https://api.example.com/v1/uploads'

/** The agent: asks for speech (JSON in, audio out), then uploads an image (bytes in, JSON out). */
async function agent(session: Session, upstream: (req: Request) => Promise<Response>) {
  const speech = await handleExchange(
    session,
    new Request(URL_SPEECH, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tts-1', input: 'hello', voice: 'alloy' }),
    }),
    upstream,
  )
  const audio = new Uint8Array(await speech.arrayBuffer())
  const upload = await handleExchange(
    session,
    new Request(URL_UPLOAD, { method: 'POST', headers: { 'content-type': 'image/png' }, body: IMAGE }),
    upstream,
  )
  return { audio, type: speech.headers.get('content-type'), uploaded: await upload.json() }
}

async function provider(req: Request): Promise<Response> {
  if (req.url === URL_SPEECH) return new Response(SPEECH, { headers: { 'content-type': 'audio/mpeg' } })
  const got = new Uint8Array(await req.arrayBuffer())
  return Response.json({ ok: Buffer.from(got).equals(Buffer.from(IMAGE)), size: got.byteLength })
}

describe('binary bodies: record, write, load, replay', () => {
  it('records audio and an image upload as sidecar files and replays the same bytes, twice', async () => {
    const recording = new Session({ mode: 'record', name: 'binaries' })
    const live = await agent(recording, provider)
    expect(Buffer.from(live.audio).equals(Buffer.from(SPEECH))).toBe(true)
    expect(live.uploaded).toEqual({ ok: true, size: IMAGE.byteLength })
    const run = await recording.finish({ output: null })

    const path = join(dir, 'binaries.cassette.json')
    writeCassette(path, run, { onWarning: () => {} })
    const text = readFileSync(path, 'utf8')
    expect(text).not.toContain(Buffer.from(SPEECH).toString('base64').slice(0, 32))
    expect(text).not.toContain(Buffer.from(IMAGE).toString('base64').slice(0, 32))
    const steps = loadCassette(path).run.steps as HttpStep[]
    expect(steps.map((s) => s.response?.bodyFile?.mediaType ?? s.request.bodyFile?.mediaType)).toEqual([
      'audio/mpeg',
      'image/png',
    ])
    expect(steps[0]!.response!.bodyFile!.bytes).toBe(SPEECH.byteLength)
    expect(readdirSync(cassetteFilesDir(path))).toHaveLength(2)

    const recorded = loadCassette(path).run
    for (let round = 0; round < 2; round++) {
      const replay = new Session({ mode: 'replay', recorded, label: 'binaries' })
      const offline = await agent(replay, () => Promise.reject(new Error('no network at replay')))
      expect(Buffer.from(offline.audio).equals(Buffer.from(SPEECH))).toBe(true)
      expect(offline.type).toBe('audio/mpeg')
      expect(offline.uploaded).toEqual(live.uploaded)
      await replay.finish({ output: null })
    }
  })

  it('knows which content types are binary', () => {
    expect(
      ['audio/wav', 'image/png', 'video/mp4', 'application/pdf', 'application/octet-stream'].map(
        isBinaryMediaType,
      ),
    ).toEqual([true, true, true, true, true])
    expect(isBinaryMediaType('multipart/form-data; boundary=x')).toBe(true)
    expect(
      ['application/json', 'text/plain', 'text/event-stream', '', undefined].map(isBinaryMediaType),
    ).toEqual([false, false, false, false, false])
  })
})
