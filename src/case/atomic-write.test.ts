import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { CrashlabError } from '../errors.ts'
import { writeFileAtomic } from './atomic-write.ts'

const dir = mkdtempSync(join(tmpdir(), 'crashlab-atomic-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('writeFileAtomic', () => {
  it('creates missing folders and replaces the target whole', () => {
    const target = join(dir, 'a', 'b', 'run.json')
    writeFileAtomic(target, 'old\n')
    writeFileAtomic(target, 'new\n')
    expect(readFileSync(target, 'utf8')).toBe('new\n')
    expect(readdirSync(join(dir, 'a', 'b'))).toEqual(['run.json'])
  })

  it('fails with E_WRITE_FAILED, naming the path, when a file stands where the folder should be', () => {
    const blocker = join(dir, 'blocker')
    writeFileSync(blocker, 'x')
    const target = join(blocker, 'sub', 'run.json')
    const err = (() => {
      try {
        writeFileAtomic(target, 'data')
      } catch (e) {
        return e
      }
    })()
    expect(err).toBeInstanceOf(CrashlabError)
    expect((err as CrashlabError).code).toBe('E_WRITE_FAILED')
    expect((err as CrashlabError).message).toContain(target)
  })

  it('leaves the old file and no temp file when the target cannot be replaced', () => {
    const folder = join(dir, 'c')
    writeFileAtomic(join(folder, 'keep.json'), 'keep')
    // renaming a file over a non-empty folder fails after the temp file was written
    writeFileAtomic(join(folder, 'target', 'inner.json'), 'inner')
    expect(() => writeFileAtomic(join(folder, 'target'), 'data')).toThrow(CrashlabError)
    expect(readdirSync(folder).sort()).toEqual(['keep.json', 'target'])
    expect(readFileSync(join(folder, 'target', 'inner.json'), 'utf8')).toBe('inner')
  })
})
