import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Run } from '../src/case/schema/run.ts'
import { type ImportedTrace, startOtlpReceiver } from '../src/otel/index.ts'
import { stepContent } from '../src/otel/internal/test-steps.ts'
import { BUILT_BIN, runBin, runBinSync } from './helpers/built-bin.ts'

// Runs out to OpenTelemetry through the real bin: `crashlab export --format otlp` to a file and to an
// endpoint, and `crashlab receive` storing what is posted to it.
const FIXTURES = resolve(import.meta.dirname, '..', 'src', 'otel', 'fixtures')
let dir: string
let store: string
let id: string

const crashlab = (...args: string[]) => runBinSync(dir, { CRASHLAB_DIR: store }, ...args)
const show = (ref: string) => JSON.parse(crashlab('show', ref, '--json').stdout) as Run

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'crashlab-cli-export-otlp-'))
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n')
  store = join(dir, 'runs')
  const r = crashlab('import', join(FIXTURES, 'genai-agent.json'))
  id = /as (\w+) /.exec(r.stdout)?.[1] as string
  expect(id).toMatch(/^\w{26}$/)
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Starts `crashlab receive`, and resolves with its process and the URL its first line names. */
function startReceive(...args: string[]) {
  const child = spawn(process.execPath, [BUILT_BIN, 'receive', '--otlp', '0', ...args], {
    cwd: dir,
    env: { ...process.env, NO_COLOR: '1', CRASHLAB_DIR: store },
  })
  let stdout = ''
  let stderr = ''
  child.stderr.on('data', (d) => (stderr += d))
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((done) =>
    child.on('close', (code) => done({ code, stdout, stderr })),
  )
  const url = new Promise<string>((found, failed) => {
    child.stdout.on('data', (d) => {
      stdout += d
      const m = /^listening for OTLP\/HTTP traces on (http:\/\/\S+\/v1\/traces) /.exec(stdout)
      if (m) found(m[1] as string)
    })
    child.on('close', () => failed(new Error(`crashlab receive exited: ${stdout}${stderr}`)))
  })
  return { child, url, exited, output: () => stdout }
}

describe('crashlab export --format otlp', () => {
  it('to a file with --include-content, then crashlab import: the same run', () => {
    const file = join(dir, 'trace.json')
    const r = crashlab('export', id, '--format', 'otlp', '-o', file, '--include-content')
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toBe(`wrote run ${id} to ${file} (otlp, with content, redacted)\n`)
    expect(readFileSync(file, 'utf8')).toContain('gen_ai.input.messages')
    const back = crashlab('import', file)
    expect(back.code).toBe(0)
    const backId = /as (\w+) /.exec(back.stdout)?.[1] as string
    const [original, imported] = [show(id), show(backId)]
    expect(imported.name).toBe(original.name)
    expect(imported.steps.map(stepContent)).toEqual(original.steps.map(stepContent))
    expect(imported.usage).toEqual(original.usage)
  })

  it('without --include-content: no message content in the file; .jsonl files default to otlp', () => {
    const file = join(dir, 'trace.jsonl')
    const r = crashlab('export', id, '-o', file)
    expect(r.code).toBe(0)
    const text = readFileSync(file, 'utf8')
    expect(text).toContain('"gen_ai.usage.input_tokens"')
    expect(text).not.toContain('gen_ai.input.messages')
    expect(text).not.toContain('Paris')
    const back = crashlab('import', file)
    expect(back.stdout).toMatch(/\n {2}incomplete: steps 0, 1, 2 /)
  })

  it('to an OTLP/HTTP endpoint with --endpoint and --header', async () => {
    const received: ImportedTrace[] = []
    const receiver = await startOtlpReceiver({
      port: 0,
      flushMs: 60_000,
      onTrace: (t) => void received.push(t),
    })
    const r = await runBin(dir, { CRASHLAB_DIR: store }, [
      'export',
      id,
      '--format',
      'otlp',
      '--endpoint',
      receiver.url,
      '--header',
      'x-api-key=abc',
    ])
    await receiver.close()
    expect(r.stderr).toBe('')
    expect(r.stdout).toBe(`sent run ${id} to ${receiver.url}/v1/traces (otlp, redacted)\n`)
    expect(received.map((t) => t.run.name)).toEqual(['weather-agent'])
  })

  it('usage errors and an endpoint that is not there: clear messages, no stack', () => {
    const cases: Array<[string[], string]> = [
      [
        ['export', id, '-o', join(dir, 'x.cassette.json'), '--include-content'],
        '--include-content is for --format otlp',
      ],
      [['export', id], 'needs -o file'],
      [['export', id, '-o', join(dir, 'y.json'), '--endpoint', 'http://127.0.0.1:9'], 'not both'],
      [
        ['export', id, '--format', 'otlp', '--endpoint', 'http://127.0.0.1:9', '--header', 'novalue'],
        '--header takes k=v',
      ],
      [
        ['export', id, '--endpoint', 'http://127.0.0.1:1'],
        'cannot reach the OTLP endpoint http://127.0.0.1:1/v1/traces',
      ],
    ]
    for (const [args, message] of cases) {
      const r = crashlab(...args)
      expect(r.code, args.join(' ')).toBe(1)
      expect(r.stderr).toContain(message)
      expect(r.stderr).not.toMatch(/\n\s+at /)
    }
  })
})

describe('crashlab receive --otlp', () => {
  it('prints where it listens, stores a posted trace after the quiet period, and stops on SIGINT', async () => {
    const receive = startReceive('--flush-ms', '100', '--tag', 'from-otel')
    const url = await receive.url
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\/traces$/)
    // The Collector's file of one trace in several batches, each posted as the request it was.
    const batches = readFileSync(join(FIXTURES, 'genai-agent.jsonl'), 'utf8').trim().split('\n')
    expect(batches.length).toBeGreaterThan(1)
    for (const body of batches) {
      const answer = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      })
      expect(answer.status).toBe(200)
      expect(await answer.json()).toEqual({ partialSuccess: {} })
    }
    const bad = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{',
    })
    expect(bad.status).toBe(400)
    await bad.arrayBuffer()
    // One run once the quiet period has passed, before any signal.
    for (let i = 0; i < 100 && !receive.output().includes('received trace'); i++)
      await new Promise((r) => setTimeout(r, 50))
    expect(receive.output()).toContain('received trace')
    receive.child.kill('SIGINT')
    const r = await receive.exited
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const lines = r.stdout.trim().split('\n')
    expect(lines[1]).toMatch(/^received trace [0-9a-f]{32} as \w+ \(weather-agent, 3 steps; gen_ai\)$/)
    expect(lines.at(-1)).toBe('stopped: 1 run stored')
    const listed = JSON.parse(crashlab('ls', '--json', '--tag', 'from-otel').stdout) as Array<{
      tags: string[]
    }>
    expect(listed).toHaveLength(1)
    expect(listed[0]?.tags).toEqual(expect.arrayContaining(['received', 'otel', 'from-otel']))
  })

  it('SIGTERM stores the traces it still holds; a bad port is a usage error', async () => {
    const receive = startReceive('--flush-ms', '60000')
    const url = await receive.url
    const export_ = crashlab('export', id, '--format', 'otlp', '--endpoint', url.replace(/\/v1\/traces$/, ''))
    expect(export_.code).toBe(0)
    receive.child.kill('SIGTERM')
    const r = await receive.exited
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(
      /\nreceived trace [0-9a-f]{32} as \w+ \(weather-agent, 3 steps; gen_ai\)\n {2}incomplete/,
    )
    expect(r.stdout).toMatch(/stopped: 1 run stored\n$/)
    const bad = crashlab('receive', '--otlp', 'http')
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('--otlp takes a port')
  })
})
