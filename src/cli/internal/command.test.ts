import { describe, expect, it, vi } from 'vitest'
import { isCrashlabError } from '../../errors.ts'
import { defineCommand, parseArgs, renderUsage, runCommand, runMain } from './command.ts'

const DEFS = {
  run: { type: 'positional', description: 'the run' },
  other: { type: 'positional', required: false },
  'max-bytes': { type: 'string', valueHint: 'n' },
  output: { type: 'string', alias: 'o' },
  k: { type: 'string' },
  json: { type: 'boolean' },
  color: { type: 'boolean', default: true },
  format: { type: 'enum', options: ['text', 'json'], default: 'text' },
} as const

function usageOf(fn: () => unknown): string {
  try {
    fn()
  } catch (error) {
    if (isCrashlabError(error, 'E_CLI_USAGE')) return error.message
    throw error
  }
  throw new Error('expected E_CLI_USAGE')
}

describe('parseArgs', () => {
  it('takes positionals in order, options in each spelling, and defaults', () => {
    const args = parseArgs(['last', '--max-bytes', '10', '--json'], DEFS, 'crashlab t')
    expect(args).toMatchObject({ _: ['last'], run: 'last', 'max-bytes': '10', maxBytes: '10', json: true })
    expect(args.other).toBeUndefined()
    expect(args.color).toBe(true)
    expect(args.format).toBe('text')
    expect(parseArgs(['a', '--maxBytes=7'], DEFS, 't')['max-bytes']).toBe('7')
  })

  it('a string option takes the next token whatever it looks like; `=` keeps the value whole', () => {
    expect(parseArgs(['a', '--output', '--json'], DEFS, 't')).toMatchObject({
      output: '--json',
      json: undefined,
    })
    expect(parseArgs(['a', '--output=x=y'], DEFS, 't').output).toBe('x=y')
    expect(parseArgs(['a', '--output'], DEFS, 't').output).toBe('')
  })

  it('aliases, short values and --no-', () => {
    expect(parseArgs(['a', '-o', 'f.json'], DEFS, 't').output).toBe('f.json')
    expect(parseArgs(['a', '-k10'], DEFS, 't').k).toBe('10')
    expect(parseArgs(['a', '-k', '3'], DEFS, 't').k).toBe('3')
    expect(parseArgs(['a', '--no-color'], DEFS, 't').color).toBe(false)
    expect(parseArgs(['a', '--json=false'], DEFS, 't').json).toBe(false)
  })

  it('everything after -- is positional, and so is a negative number', () => {
    const args = parseArgs(['--', '--json', 'b'], DEFS, 't')
    expect(args).toMatchObject({ _: ['--json', 'b'], run: '--json', other: 'b' })
    expect(args.json).toBeUndefined()
    expect(parseArgs(['-5'], DEFS, 't').run).toBe('-5')
  })

  it('keeps a flag nobody declared under its own name (the strict wrapper rejects it)', () => {
    expect(parseArgs(['a', '--record=missing', '-t'], DEFS, 't')).toMatchObject({
      record: 'missing',
      t: true,
    })
  })

  it('refuses a missing positional and an enum value outside its options, naming them', () => {
    expect(usageOf(() => parseArgs([], DEFS, 'crashlab show'))).toContain('`crashlab show` needs RUN')
    expect(usageOf(() => parseArgs(['a', '--format', 'xml'], DEFS, 'crashlab t'))).toContain(
      '--format "xml" is not one of text, json',
    )
  })
})

describe('runCommand and runMain', () => {
  const seen: unknown[] = []
  const ls = defineCommand({
    meta: { name: 'ls', description: 'List things' },
    args: { json: { type: 'boolean', description: 'as JSON' }, dir: { type: 'string', valueHint: 'path' } },
    run: ({ args }) => seen.push(['ls', args.json, args.dir]),
  })
  const root = defineCommand({
    meta: { name: 'crashlab', version: '9.9.9', description: 'The tool' },
    subCommands: { ls: async () => ls, show: ls },
  })

  it('follows the subcommand the first positional names, loading it on use', async () => {
    seen.length = 0
    await runCommand(root, { rawArgs: ['ls', '--json', '--dir', 'x'] })
    expect(seen).toEqual([['ls', true, 'x']])
  })

  it('an unknown command or none is E_CLI_USAGE listing the commands', async () => {
    await expect(runCommand(root, { rawArgs: ['lss'] })).rejects.toThrow(
      'unknown command "lss" for `crashlab`; the commands are ls, show',
    )
    await expect(runCommand(root, { rawArgs: [] })).rejects.toThrow('`crashlab` needs a command: ls, show')
  })

  it('--version alone prints the version; --help prints the named command’s usage; errors are one line', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {})
    const error = vi.spyOn(console, 'error').mockImplementation(() => {})
    try {
      await runMain(root, ['--version'])
      await runMain(root, ['ls', '--help'])
      await runMain(root, ['nope'])
      expect(log.mock.calls[0]).toEqual(['9.9.9'])
      const help = String(log.mock.calls[1]?.[0])
      expect(help).toContain('crashlab ls [OPTIONS]')
      expect(help).toContain('--dir <path>')
      expect(help).toContain('as JSON')
      expect(String(error.mock.calls[0]?.[0])).toContain('unknown command "nope"')
      expect(process.exitCode).toBe(1)
    } finally {
      process.exitCode = 0
      log.mockRestore()
      error.mockRestore()
    }
  })

  it('the root usage lists every command with its description', async () => {
    // Without colours (CI turns them on): the columns are compared as text.
    const text = (await renderUsage(root, 'crashlab', '9.9.9')).replace(/\u001b\[[0-9;]*m/g, '')
    expect(text).toContain('crashlab <command> [OPTIONS]')
    expect(text).toMatch(/ls\s+List things/)
    expect(text).toMatch(/show\s+List things/)
  })
})
