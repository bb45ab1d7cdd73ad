import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { CrashlabError } from '../errors.ts'
import { fromAgentCase } from './agentcase/from-agent-case.ts'
import { toAgentCase } from './agentcase/to-agent-case.ts'
import { binaryOf, createBodyFile } from './binary-bodies.ts'
import { cassetteFilesDir, loadCassetteBinaries } from './cassette-binaries.ts'
import { loadCassette } from './cassette-load.ts'
import { writeCassette } from './cassette-write.ts'
import { buildRealisticRun } from './internal/test-runs.ts'
import type { Run } from './schema/run.ts'
import type { HttpStep } from './schema/step.ts'

const dir = mkdtempSync(join(tmpdir(), 'crashlab-binaries-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Seeded bytes that are not text: every byte value occurs. */
function audio(seed: number, length = 4096): Uint8Array {
  const out = new Uint8Array(length)
  let s = seed >>> 0
  for (let i = 0; i < length; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    out[i] = s >>> 24
  }
  return out
}

/** A run with an http step that uploaded an image and got audio back. */
function runWithBinaries(upload: Uint8Array, speech: Uint8Array): { run: Run; step: HttpStep } {
  const run = buildRealisticRun({ steps: 2, seed: 3 })
  const step: HttpStep = {
    index: run.steps.length,
    type: 'http',
    label: 'audio.speech',
    timing: { startedAt: '2025-01-15T09:30:00.000Z', durationMs: 12 },
    error: null,
    request: {
      method: 'POST',
      url: 'https://api.openai.com/v1/audio/speech',
      headers: { 'content-type': 'image/png' },
      body: null,
      bodyFile: createBodyFile(upload, 'image/png'),
    },
    response: {
      status: 200,
      headers: { 'content-type': 'audio/mpeg' },
      body: null,
      bodyFile: createBodyFile(speech, 'audio/mpeg; codecs=mp3'),
    },
  }
  run.steps.push(step)
  return { run, step }
}

const same = (a: Uint8Array | undefined, b: Uint8Array): boolean =>
  !!a && Buffer.from(a).equals(Buffer.from(b))

describe('binary bodies are sidecar files beside the cassette', () => {
  it('writes each body once as <name>.files/<sha256>, never as base64 in the JSON, and loads it back', () => {
    const upload = audio(1)
    const speech = audio(2, 10_000)
    const { run, step } = runWithBinaries(upload, speech)
    const path = join(dir, 'speech.cassette.json')
    const written = writeCassette(path, run)

    const files = cassetteFilesDir(path)
    expect(files).toBe(join(dir, 'speech.cassette.files'))
    const sha = step.response!.bodyFile!.sha256
    expect(sha).toMatch(/^[0-9a-f]{64}$/)
    expect(readdirSync(files).sort()).toEqual([step.request.bodyFile!.sha256, sha].sort())
    expect(same(readFileSync(join(files, sha)), speech)).toBe(true)

    const text = readFileSync(path, 'utf8')
    expect(text).not.toContain(Buffer.from(speech).toString('base64').slice(0, 40))
    expect(text).not.toContain(Buffer.from(upload).toString('base64').slice(0, 40))
    const loaded = loadCassette(path)
    expect(loaded).toEqual(written)
    const loadedStep = loaded.run.steps[step.index] as HttpStep
    expect(loadedStep.response!.bodyFile).toEqual({ sha256: sha, mediaType: 'audio/mpeg', bytes: 10_000 })
    expect(same(binaryOf(loadedStep.response!.bodyFile), speech)).toBe(true)
    expect(same(binaryOf(loadedStep.request.bodyFile), upload)).toBe(true)
    // the cassette as returned by the writer can be replayed at once, too
    expect(same(binaryOf((written.run.steps[step.index] as HttpStep).response!.bodyFile), speech)).toBe(true)
  })

  it('takes bytes from the `binaries` option, and refuses bytes that do not hash to the body', () => {
    const speech = audio(5)
    const { run, step } = runWithBinaries(audio(4), speech)
    // a plain-JSON copy of the run has lost the side table: the bytes come from the option
    const copy = JSON.parse(JSON.stringify(run)) as Run
    const path = join(dir, 'option.cassette.json')
    const reqSha = step.request.bodyFile!.sha256
    const resSha = step.response!.bodyFile!.sha256
    expect(() => writeCassette(path, copy)).toThrow(/has no bytes in this process/)
    expect(existsSync(path)).toBe(false)
    const wrong = new Map([
      [reqSha, audio(4)],
      [resSha, audio(6)],
    ])
    expect(() => writeCassette(path, copy, { binaries: wrong })).toThrow(
      expect.objectContaining({ code: 'E_CASSETTE_INVALID' }),
    )
    expect(existsSync(path)).toBe(false)
    writeCassette(path, copy, { binaries: new Map([...wrong, [resSha, speech]]) })
    expect(
      same(loadCassetteBinaries(path, loadCassette(path, { binaries: false })).get(resSha), speech),
    ).toBe(true)
  })

  it('a re-write keeps sidecars already on disk and removes those no body points at', () => {
    const path = join(dir, 'rewrite.cassette.json')
    const first = runWithBinaries(audio(7), audio(8))
    writeCassette(path, first.run)
    // a loaded cassette written again finds its bytes; a plain copy finds them on disk
    writeCassette(path, JSON.parse(JSON.stringify(first.run)) as Run)
    const second = runWithBinaries(audio(7), audio(9))
    writeCassette(path, second.run)
    expect(readdirSync(cassetteFilesDir(path)).sort()).toEqual(
      [second.step.request.bodyFile!.sha256, second.step.response!.bodyFile!.sha256].sort(),
    )
    writeCassette(path, buildRealisticRun({ steps: 2, seed: 3 }))
    expect(existsSync(cassetteFilesDir(path))).toBe(false)
  })

  it('a missing sidecar is E_CASSETTE_NOT_FOUND and a changed one E_CASSETTE_INVALID, naming the file', () => {
    const path = join(dir, 'broken.cassette.json')
    const { step } = (() => {
      const r = runWithBinaries(audio(10), audio(11))
      writeCassette(path, r.run)
      return r
    })()
    const sidecar = join(cassetteFilesDir(path), step.response!.bodyFile!.sha256)
    writeFileSync(sidecar, audio(12))
    let error: unknown
    try {
      loadCassette(path)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(CrashlabError)
    expect(error).toMatchObject({ code: 'E_CASSETTE_INVALID', subject: path })
    expect((error as Error).message).toContain(sidecar)
    rmSync(sidecar)
    expect(() => loadCassette(path)).toThrow(expect.objectContaining({ code: 'E_CASSETTE_NOT_FOUND' }))
    expect(() => loadCassette(path)).toThrow(/\.files/)
    // without binaries the JSON still loads (inspect, scan)
    expect(loadCassette(path, { binaries: false }).run.steps).toHaveLength(step.index + 1)
  })

  it('an AgentCase export keeps the bodyFile descriptors (the bytes stay in the sidecar files)', () => {
    const { run, step } = runWithBinaries(audio(15), audio(16))
    const back = fromAgentCase(toAgentCase(run)).steps[step.index] as HttpStep
    expect(back.response!.bodyFile).toEqual(step.response!.bodyFile)
    expect(back.request.bodyFile).toEqual(step.request.bodyFile)
  })

  it('refuses a bodyFile that is not a sha256', () => {
    const { run, step } = runWithBinaries(audio(13), audio(14))
    step.response!.bodyFile = { sha256: 'not-a-hash', mediaType: 'audio/mpeg', bytes: 3 }
    expect(() => writeCassette(join(dir, 'bad.cassette.json'), run)).toThrow(/bodyFile\/sha256|sha256/)
  })
})
