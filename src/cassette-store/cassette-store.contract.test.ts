import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { type AgentCase, createRun, type Run, toAgentCase } from '../case/index.ts'
import { CrashlabError } from '../errors.ts'
import type { CassetteStore } from './cassette-store.ts'
import { fileCassetteStore } from './file-cassette-store.ts'
import { memoryCassetteStore } from './internal/test-memory-store.ts'

// The contract every CassetteStore keeps, run over each implementation: the file-system store the
// plugin and the matchers use, and the in-memory one (same rules, no disk).
const root = mkdtempSync(join(tmpdir(), 'crashlab-store-contract-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
let folders = 0

/** A fresh test file path for each test, so that stores never see each other's entries. */
function testFile(): string {
  const dir = join(root, `project-${folders++}`, 'test')
  mkdirSync(dir, { recursive: true })
  return join(dir, 'refund.test.ts')
}

/** Built at test time: a secret-looking value that is never a literal in the source. */
function fakeToken(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'
  let out = ''
  for (let i = 0; i < 40; i++) out += alphabet[(i * 7 + folders * 13) % alphabet.length]
  return ['s', 'k', '-', 'test', '-'].join('') + out
}

/** A finished run with one tool step; `secret` goes into the tool's arguments under a sensitive key. */
function toolRun(secret?: string, answer = 'refunded'): Run {
  const run = createRun({ name: 'refund-bot', input: 'refund A17' })
  run.steps.push({
    index: 0,
    type: 'tool',
    name: 'issue_refund',
    callId: 'call_1',
    args: secret === undefined ? { order_id: 'A17' } : { order_id: 'A17', authorization: `Bearer ${secret}` },
    result: { ok: true },
    sideEffects: true,
    timing: { startedAt: run.startedAt, durationMs: 20 },
    error: null,
  })
  run.usage.toolCalls = 1
  run.status = 'ok'
  run.outcome = 'pass'
  run.output = answer
  run.endedAt = run.startedAt
  return run
}

type Make = (options: { cassetteDir?: string }) => CassetteStore

const implementations: Array<[string, Make]> = [
  ['the file-system store', (options) => fileCassetteStore(options)],
  ['the in-memory store', (options) => memoryCassetteStore(options)],
]

describe.each(implementations)('CassetteStore contract: %s', (_, make) => {
  it('path rules: cassettes and baselines share one folder per test file, under cassetteDir', () => {
    const file = '/repo/test/refund.test.ts'
    const byDefault = make({})
    expect(byDefault.folderOf(file)).toBe('/repo/test/__cassettes__/refund.test.ts')
    expect(byDefault.cassettePath(file, 'refund > clean')).toBe(
      '/repo/test/__cassettes__/refund.test.ts/refund › clean.cassette.json',
    )
    const store = make({ cassetteDir: 'recordings' })
    expect(store.cassettePath(file, 'refund > clean')).toBe(
      '/repo/test/recordings/refund.test.ts/refund › clean.cassette.json',
    )
    expect(store.baselinePath(file, 'refund > clean')).toBe(
      '/repo/test/recordings/refund.test.ts/refund › clean.agentcase',
    )
    expect(store.baselinePath(file, 'refund > clean', 'after: refund')).toBe(
      '/repo/test/recordings/refund.test.ts/refund › clean.after%3A refund.agentcase',
    )
    const absolute = make({ cassetteDir: '/data/recordings' })
    expect(absolute.cassettePath(file, 'a')).toBe('/data/recordings/refund.test.ts/a.cassette.json')
    expect(absolute.baselinePath(file, 'a')).toBe('/data/recordings/refund.test.ts/a.agentcase')
  })

  it('a cassette and a baseline round-trip: what is read is what the write returned', () => {
    const store = make({ cassetteDir: 'recordings' })
    const file = testFile()
    const path = store.cassettePath(file, 'refund > clean')
    expect(store.exists(path)).toBe(false)
    expect(store.readText(path)).toBeUndefined()
    const written = store.writeCassette(path, toolRun())
    expect(store.exists(path)).toBe(true)
    expect(store.readCassette(path)).toEqual(written)
    expect(JSON.parse(store.readText(path) ?? '')).toEqual(written)

    const baseline = store.baselinePath(file, 'refund > clean')
    const c = store.writeBaseline(baseline, toAgentCase(toolRun()))
    expect(store.readBaseline(baseline)).toEqual(c)
  })

  it('a missing cassette is E_CASSETTE_NOT_FOUND', () => {
    const store = make({})
    const path = store.cassettePath(testFile(), 'never recorded')
    expect(() => store.readCassette(path)).toThrow(
      expect.objectContaining({ code: 'E_CASSETTE_NOT_FOUND' }) as unknown as Error,
    )
  })

  it('a failed write leaves what was there: the old entry, or none', () => {
    const store = make({})
    const file = testFile()
    const path = store.cassettePath(file, 'refund')
    const before = store.writeCassette(path, toolRun())
    const broken = { ...toolRun(), output: new Date() } as unknown as Run
    expect(() => store.writeCassette(path, broken)).toThrow(CrashlabError)
    expect(store.readCassette(path)).toEqual(before)

    const fresh = store.cassettePath(file, 'never written')
    expect(() => store.writeCassette(fresh, broken)).toThrow(CrashlabError)
    expect(store.exists(fresh)).toBe(false)
    const baseline = store.baselinePath(file, 'refund')
    expect(() => store.writeBaseline(baseline, {} as AgentCase)).toThrow(CrashlabError)
    expect(store.exists(baseline)).toBe(false)
    expect(store.list(file).map((e) => e.name)).toEqual(['refund.cassette.json'])
  })

  it('redacts before it writes: no secret reaches the stored text', () => {
    const store = make({})
    const file = testFile()
    const secret = fakeToken()
    const path = store.cassettePath(file, 'leaky')
    const cassette = store.writeCassette(path, toolRun(secret))
    expect(cassette.run.redaction.status).toBe('redacted')
    expect(store.readText(path)).not.toContain(secret)
    expect(JSON.stringify(store.readCassette(path))).not.toContain(secret)

    const baseline = store.baselinePath(file, 'leaky')
    store.writeBaseline(baseline, toAgentCase(toolRun(secret)))
    expect(store.readText(baseline)).not.toContain(secret)
  })

  it("lists the cassettes and baselines of one test file, sorted, and nothing of another file's", () => {
    const store = make({ cassetteDir: 'recordings' })
    const file = testFile()
    const other = join(file, '..', 'other.test.ts')
    store.writeCassette(store.cassettePath(file, 'b'), toolRun())
    store.writeBaseline(store.baselinePath(file, 'b', 'final'), toAgentCase(toolRun()))
    store.writeBaseline(store.baselinePath(file, 'a'), toAgentCase(toolRun()))
    store.writeCassette(store.cassettePath(other, 'a'), toolRun())
    expect(store.list(file)).toEqual([
      { kind: 'baseline', name: 'a.agentcase', path: store.baselinePath(file, 'a') },
      { kind: 'cassette', name: 'b.cassette.json', path: store.cassettePath(file, 'b') },
      { kind: 'baseline', name: 'b.final.agentcase', path: store.baselinePath(file, 'b', 'final') },
    ])
    expect(store.list(join(file, '..', 'never.test.ts'))).toEqual([])
  })

  it('removes an entry; removing what is not stored is fine', () => {
    const store = make({})
    const file = testFile()
    const cassette = store.cassettePath(file, 'gone')
    const baseline = store.baselinePath(file, 'gone')
    store.writeCassette(cassette, toolRun())
    store.writeBaseline(baseline, toAgentCase(toolRun()))
    store.remove(cassette)
    expect(store.exists(cassette)).toBe(false)
    expect(store.list(file).map((e) => e.kind)).toEqual(['baseline'])
    store.remove(baseline)
    store.remove(baseline)
    expect(store.list(file)).toEqual([])
  })
})

describe('the file-system store', () => {
  it('leaves no partial or temp file when the disk refuses the write', () => {
    const store = fileCassetteStore()
    const file = testFile()
    const path = store.cassettePath(file, 'blocked')
    // A folder where the cassette should go: the final rename fails after the temp file was written.
    mkdirSync(path, { recursive: true })
    expect(() => store.writeCassette(path, toolRun())).toThrow(
      expect.objectContaining({ code: 'E_WRITE_FAILED' }) as unknown as Error,
    )
    expect(readdirSync(store.folderOf(file))).toEqual(['blocked.cassette.json'])
    expect(store.exists(path)).toBe(false)
    expect(store.list(file)).toEqual([])
  })

  it('removes a cassette with its sidecar folder, and the emptied test file folder', () => {
    const store = fileCassetteStore({ cassetteDir: 'recordings' })
    const file = testFile()
    const path = store.cassettePath(file, 'audio')
    store.writeCassette(path, toolRun())
    const sidecars = join(store.folderOf(file), 'audio.cassette.files')
    mkdirSync(sidecars)
    store.remove(path)
    // The sidecar folder went with the cassette, and the test file's folder with its last entry.
    expect(readdirSync(join(file, '..', 'recordings'))).toEqual([])
  })
})
