import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { loadCassette } from './cassette-load.ts'
import { DEFAULT_MAX_CASSETTE_BYTES } from './cassette-parse.ts'
import { serializeCassette } from './cassette-serialize.ts'
import { writeCassette } from './cassette-write.ts'
import { failure } from './internal/test-failure.ts'
import { buildRealisticRun, cassetteOf } from './internal/test-runs.ts'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'crashlab-load-'))
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

describe('loadCassette', () => {
  it('loads what writeCassette wrote', () => {
    const path = join(dir, 'refund.cassette.json')
    const written = writeCassette(path, buildRealisticRun({ steps: 20, seed: 5 }))
    expect(loadCassette(path)).toEqual(written)
  })

  it('says how to record a missing cassette', () => {
    const path = join(dir, 'missing.cassette.json')
    const err = failure(() => loadCassette(path))
    expect(err.code).toBe('E_CASSETTE_NOT_FOUND')
    expect(err.message).toBe(
      `[crashlab] no cassette at ${path}: record it by running the test with \`npx crashlab vitest --record\`.`,
    )
    expect(err.subject).toBe(path)
    expect((err.cause as NodeJS.ErrnoException).code).toBe('ENOENT')
  })

  it('treats a path through a file as missing', () => {
    writeFileSync(join(dir, 'file'), '')
    expect(failure(() => loadCassette(join(dir, 'file', 'c.json'))).code).toBe('E_CASSETTE_NOT_FOUND')
  })

  it('refuses a folder', () => {
    mkdirSync(join(dir, 'c.cassette.json'))
    const err = failure(() => loadCassette(join(dir, 'c.cassette.json')))
    expect(err.code).toBe('E_CASSETTE_NOT_FOUND')
    expect(err.message).toContain('is a folder, not a cassette file')
  })

  it('refuses an oversized file from its size alone, before reading it', () => {
    // A sparse 64 GiB file: reading it would take minutes and more memory than there is.
    const path = join(dir, 'huge.cassette.json')
    writeFileSync(path, '')
    truncateSync(path, 64 * 1024 ** 3)
    // Reading it would take more memory than there is: an E_CASSETTE_TOO_LARGE (not a crash) shows it was not read.
    const err = failure(() => loadCassette(path))
    expect(err.code).toBe('E_CASSETTE_TOO_LARGE')
    expect(err.message).toContain(`cassette ${path} is 65536 MiB (68719476736 bytes)`)
    expect(err.message).toContain(`over the 16 MiB limit (${DEFAULT_MAX_CASSETTE_BYTES} bytes)`)
    expect(err.message).toContain('`maxBytes`')
  })

  it('honours a raised or lowered maxBytes', () => {
    const path = join(dir, 'c.cassette.json')
    const cassette = cassetteOf(buildRealisticRun({ steps: 3, seed: 1 }))
    const text = serializeCassette(cassette)
    writeFileSync(path, text)
    const size = Buffer.byteLength(text)
    expect(failure(() => loadCassette(path, { maxBytes: size - 1 })).code).toBe('E_CASSETTE_TOO_LARGE')
    expect(loadCassette(path, { maxBytes: size })).toEqual(cassette)
  })

  it('names the file in parse errors', () => {
    const path = join(dir, 'broken.cassette.json')
    writeFileSync(path, '{"format": "crashlab.cassette", "version": 1,')
    const err = failure(() => loadCassette(path))
    expect(err.code).toBe('E_CASSETTE_MALFORMED')
    expect(err.message).toContain(`cassette ${path} is not valid JSON`)
    expect(err.subject).toBe(path)
  })

  it('passes the internal migrations option through', () => {
    const path = join(dir, 'old.cassette.json')
    const cassette = cassetteOf(buildRealisticRun({ steps: 2, seed: 2 }))
    writeFileSync(path, JSON.stringify({ ...cassette, version: 0 }))
    expect(failure(() => loadCassette(path)).code).toBe('E_CASSETTE_VERSION')
    expect(loadCassette(path, { migrations: [{ from: 0, to: 1, migrate: (d) => d }] })).toEqual(cassette)
  })
})
