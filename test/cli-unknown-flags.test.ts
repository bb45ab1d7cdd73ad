import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { splitRecordFlag } from '../src/cli/commands/vitest.ts'
import { runCommand } from '../src/cli/internal/command.ts'
import { rejectUnknownFlags } from '../src/cli/internal/strict-commands.ts'
import { main } from '../src/cli/main.ts'
import { runBinSync } from './helpers/built-bin.ts'

/** An unknown flag is an error on every command but `crashlab vitest`, which hands its flags to Vitest. */
const dir = mkdtempSync(join(tmpdir(), 'crashlab-flags-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const commands = Object.keys((main.subCommands ?? {}) as Record<string, unknown>).filter(
  (n) => n !== 'vitest',
)

describe('unknown flags', () => {
  it.each(commands)(
    'crashlab %s --bogus-flag: E_CLI_USAGE, exit 1, before the command runs',
    async (name) => {
      let out = ''
      const capture = (...a: unknown[]) => {
        out += `${a.join(' ')}\n`
      }
      const log = vi.spyOn(console, 'log').mockImplementation(capture)
      const err = vi.spyOn(console, 'error').mockImplementation(capture)
      const before = process.exitCode
      process.exitCode = 0
      try {
        await runCommand(main, { rawArgs: [name, 'x', '--bogus-flag', '--dir', join(dir, 'store')] })
      } finally {
        log.mockRestore()
        err.mockRestore()
      }
      const code = process.exitCode
      process.exitCode = before
      expect(code).toBe(1)
      expect(out).toContain(`unknown option "--bogus-flag" for \`crashlab ${name}\``)
      expect(out).toContain('(E_CLI_USAGE)')
    },
  )

  it('through the bin: ls --bogus-flag exits 1; known spellings pass', () => {
    const bad = runBinSync(dir, { CRASHLAB_DIR: join(dir, 'store') }, 'ls', '--bogus-flag')
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('(E_CLI_USAGE)')
    const good = runBinSync(
      dir,
      { CRASHLAB_DIR: join(dir, 'store') },
      'ls',
      '--json',
      '--limit=3',
      '--no-flagged',
    )
    expect(good.stderr).toBe('')
    expect(good.code).toBe(0)
  })

  it('accepts every declared spelling, skips option values and what follows --', () => {
    const args = {
      dir: { type: 'string' },
      'max-bytes': { type: 'string' },
      json: { type: 'boolean' },
      output: { type: 'string', alias: 'o' },
    } as const
    for (const ok of [
      ['--dir', '--weird-dir-name'],
      ['--maxBytes', '5'],
      ['--max-bytes=5', '--no-json', '-o', 'f', '-'],
      ['file', '--', '--anything'],
      ['--dir', '-5'],
    ])
      expect(() => rejectUnknownFlags(ok, args, 'crashlab t')).not.toThrow()
    for (const bad of [['--nope'], ['-x'], ['--no-nope'], ['--json=1', '--jsn']])
      expect(() => rejectUnknownFlags(bad, args, 'crashlab t')).toThrow(/unknown option/)
  })

  it('crashlab vitest keeps its unknown flags for Vitest', () => {
    expect(splitRecordFlag(['run', '--bogus-flag', '--record=missing']).vitestArgs).toEqual([
      'run',
      '--bogus-flag',
    ])
  })
})
