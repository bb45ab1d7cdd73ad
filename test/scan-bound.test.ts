import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { scanPaths } from '../src/redact/scan-paths.ts'
import { runBinSync } from './helpers/built-bin.ts'

/**
 * `crashlab scan` on a file over its 16 MiB document bound: scanned as text in 4 MiB pieces (bounded
 * memory), every secret found once with its line, also one that straddles a piece boundary.
 */
const dir = mkdtempSync(join(tmpdir(), 'crashlab-scan-bound-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const MiB = 1024 * 1024
// A random-looking value built at run time from a seed (the entropy rule's kind of secret), never a literal.
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
let state = 12345
const token = Array.from({ length: 40 }, () => {
  state = (Math.imul(state, 1103515245) + 12345) >>> 0
  return ALPHABET[(state >>> 16) % ALPHABET.length]
}).join('')

function bigFile(): { path: string; lines: number[] } {
  const path = join(dir, 'huge.log')
  const fd = openSync(path, 'w')
  const filler = 'lorem ipsum dolor sit amet, nothing to see on this line at all\n'
  let written = 0
  let line = 1
  const lines: number[] = []
  const put = (s: string) => {
    writeSync(fd, s)
    written += Buffer.byteLength(s)
    line += s.split('\n').length - 1
  }
  // 40 MiB of filler, a token at 6 MiB, one across the 8 MiB piece boundary, one near the end.
  for (const at of [6 * MiB, 8 * MiB - 10, 39 * MiB]) {
    const block = filler.repeat(Math.floor((at - written) / filler.length))
    put(block)
    put(' '.repeat(at - written))
    lines.push(line)
    put(`${token}\n`)
  }
  put(filler.repeat(Math.ceil((40 * MiB - written) / filler.length)))
  closeSync(fd)
  return { path, lines }
}

describe('crashlab scan over the document bound', () => {
  const { path, lines } = bigFile()

  it('finds every secret once, with its line, across piece boundaries', async () => {
    const report = await scanPaths([path])
    expect(report.files).toBe(1)
    // One line per planted token (a token may fire two rules: its format and the `token=` assignment).
    expect([...new Set(report.findings.map((f) => f.line))]).toEqual(lines)
    expect(report.findings.every((f) => f.pointer === null && !f.excerpt.includes(token))).toBe(true)
  }, 120_000)

  it('through the bin: exit 1 on the findings, bounded output, no stack trace', () => {
    const r = runBinSync(dir, {}, 'scan', path)
    expect(r.code).toBe(1)
    expect(r.stdout.length + r.stderr.length).toBeLessThan(16 * 1024)
    expect(r.stdout + r.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m)
  }, 120_000)
})
