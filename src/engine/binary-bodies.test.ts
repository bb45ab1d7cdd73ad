import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import OpenAI from 'openai'
import { afterAll, describe, expect, it } from 'vitest'
import { cassetteFilesDir } from '../case/cassette-binaries.ts'
import { loadCassette } from '../case/cassette-load.ts'
import { writeCassette } from '../case/cassette-write.ts'
import type { HttpStep } from '../case/schema/step.ts'
import { SECRET_CORPUS } from '../redact/test-corpus.ts'
import { runInSession } from './context.ts'
import { DivergenceError } from './divergence-error.ts'
import { handleExchange } from './handle-exchange.ts'
import { isBinaryMediaType } from './internal/binary-body.ts'
import { Session } from './session.ts'
import { wrap } from './wrap.ts'

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

describe('sidecar redaction: a multipart upload with a secret in a text field', () => {
  const KEY = SECRET_CORPUS.find((e) => e.id === 'anthropic-key')!.secret
  const upload = (prompt: string, audio = SPEECH) =>
    wrapped.audio.transcriptions.create({
      model: 'whisper-1',
      file: new File([audio], 'note.mp3', { type: 'audio/mpeg' }),
      prompt,
    })
  // The real SDK, whose fetch hands undici a FormData: a boundary drawn at random for every request.
  const provider: typeof fetch = async () => Response.json({ text: 'refund A17 please' })
  const wrapped = wrap(
    new OpenAI({ apiKey: 'sk-test', baseURL: 'https://api.openai.com/v1', fetch: provider, maxRetries: 0 }),
  )

  it('keeps the secret out of the sidecar, keeps the audio as it came, and still matches at replay', async () => {
    const recording = new Session({ mode: 'record', name: 'transcribe' })
    const live = await runInSession(recording, () => upload(`customer key ${KEY}`))
    expect(live.text).toBe('refund A17 please')
    const run = await recording.finish({ output: null })
    const path = join(dir, 'transcribe.cassette.json')
    writeCassette(path, run, { onWarning: () => {} })

    // (The SDK first probes its fetch with a `data:,` request: a step too.)
    const step = (loadCassette(path).run.steps as HttpStep[]).find((s) => s.request.bodyFile)!
    expect(step.request.bodyFile?.mediaType).toBe('multipart/form-data')
    expect(step.request.headers['content-type']).toBe(
      'multipart/form-data; boundary=----crashlab-form-boundary',
    )
    const [name] = readdirSync(cassetteFilesDir(path))
    const sidecar = readFileSync(join(cassetteFilesDir(path), name!))
    expect(sidecar.includes(KEY)).toBe(false)
    expect(sidecar.toString('latin1')).toContain('customer key [REDACTED:anthropic-key]')
    expect(sidecar.includes(Buffer.from(SPEECH))).toBe(true)
    expect(readFileSync(path, 'utf8')).not.toContain(KEY)

    // A new request, so a new random boundary, with the secret as it is live: the same upload.
    const recorded = loadCassette(path).run
    const replay = new Session({ mode: 'replay', recorded, label: 'transcribe' })
    const again = await runInSession(replay, () => upload(`customer key ${KEY}`))
    expect(again.text).toBe('refund A17 please')
    await expect(replay.finish({ output: null })).resolves.toMatchObject({ status: 'ok' })

    // Other audio is another upload: a divergence that names the body.
    const other = new Session({ mode: 'replay', recorded, label: 'transcribe' })
    const changed = SPEECH.slice()
    changed[0] = 1
    await expect(runInSession(other, () => upload(`customer key ${KEY}`, changed))).rejects.toThrow()
    const divergence = await other.finish({ output: null }).catch((e: unknown) => e)
    expect(divergence).toBeInstanceOf(DivergenceError)
    expect((divergence as DivergenceError).differences.map((d) => d.what)).toContain('binary body sha256')
  })
})
