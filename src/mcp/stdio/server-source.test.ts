import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { serverSourceDigest } from './server-source.ts'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A server's folder: an entry that imports a tools module (written as `.js`, as TypeScript ESM does). */
function serverFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'crashlab-server-source-'))
  dirs.push(dir)
  writeFileSync(join(dir, 'server.ts'), "import { tools } from './tools.js'\nexport const server = tools\n")
  writeFileSync(join(dir, 'tools.ts'), "export const tools = ['get_order']\n")
  writeFileSync(join(dir, 'README.md'), 'not code\n')
  return dir
}

describe('serverSourceDigest', () => {
  it('changes when an imported module changes, not when an unrelated file does', () => {
    const dir = serverFolder()
    const server = { command: 'tsx', args: ['server.ts'], cwd: dir }
    const before = serverSourceDigest(server)
    expect(before).toMatch(/^sha256:[0-9a-f]{16}$/)
    writeFileSync(join(dir, 'README.md'), 'still not code\n')
    expect(serverSourceDigest(server)).toBe(before)
    writeFileSync(join(dir, 'tools.ts'), "export const tools = ['refund_order']\n")
    expect(serverSourceDigest(server)).not.toBe(before)
  })

  it('is the same for an absolute path and the same file named relative to the working directory', () => {
    const dir = serverFolder()
    expect(serverSourceDigest({ command: 'node', args: [join(dir, 'server.ts')], cwd: dir })).toBe(
      serverSourceDigest({ command: 'node', args: ['server.ts'], cwd: dir }),
    )
  })

  it('is undefined for a server with no local source (a package run by npx)', () => {
    expect(serverSourceDigest({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] })).toBe(
      undefined,
    )
  })
})
