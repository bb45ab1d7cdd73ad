import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRun } from '../src/case/create-run.ts'
import { writeCassette } from '../src/case/index.ts'
import { BUILT_BIN } from './helpers/built-bin.ts'

const root = resolve(import.meta.dirname, '..')
const bin = BUILT_BIN
const sharedFixtures = resolve(root, '../shared/agentcase/fixtures')
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }

/** Runs the real `crashlab` command (the bin file, on this Node 22) and returns what a user would see. */
function crashlab(...args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'crashlab-cli-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('crashlab --version and --help', () => {
  it('prints the package version', () => {
    const r = crashlab('--version')
    expect(r.code).toBe(0)
    expect(r.stdout.trim()).toBe(pkg.version)
  })
  it('lists the commands', () => {
    const r = crashlab('--help')
    expect(r.code).toBe(0)
    for (const cmd of ['validate', 'inspect', 'scan']) expect(r.stdout).toContain(cmd)
  })
})

describe.skipIf(!existsSync(sharedFixtures))(
  'crashlab validate / inspect on the reference AgentCase fixtures',
  () => {
    it('accepts valid_minimal', () => {
      const r = crashlab('validate', join(sharedFixtures, 'valid_minimal.agentcase'))
      expect(r.stderr).toBe('')
      expect(r.code).toBe(0)
      expect(r.stdout).toContain('valid AgentCase 0.1')
    })
    it.each([
      ['invalid_malformed', 'E_AGENTCASE_MALFORMED'],
      ['invalid_unsupported_version', 'E_AGENTCASE_VERSION'],
      ['invalid_duplicate_event_id', 'E_AGENTCASE_DUPLICATE_EVENT_ID'],
      ['invalid_sequence', 'E_AGENTCASE_SEQUENCE'],
      ['invalid_parent_reference', 'E_AGENTCASE_PARENT_MISSING'],
    ])('rejects %s with exit 1 and %s', (name, code) => {
      const r = crashlab('validate', join(sharedFixtures, `${name}.agentcase`))
      expect(r.code).toBe(1)
      expect(r.stderr).toContain(code)
      expect(r.stderr).toContain(`${name}.agentcase`)
    })
    it('inspects outcome, completeness, counts, redaction and provenance', () => {
      const r = crashlab('inspect', '--json', join(sharedFixtures, 'valid_minimal.agentcase'))
      expect(r.code).toBe(0)
      const s = JSON.parse(r.stdout)
      expect(s).toMatchObject({
        kind: 'agentcase',
        outcome: 'failure',
        completeness: 'complete',
        total: 7,
        redaction: { status: 'redacted', records: 1 },
        provenance: null,
      })
      expect(s.counts).toEqual({
        'execution.start': 1,
        'model.request': 1,
        'model.response': 1,
        'tool.call': 1,
        'tool.result': 1,
        exception: 1,
        'execution.end': 1,
      })
      const text = crashlab('inspect', join(sharedFixtures, 'valid_minimal.agentcase')).stdout
      expect(text).toMatch(/outcome\s+failure/)
      expect(text).toMatch(/events\s+7: exception 1, execution.end 1/)
    })
  },
)
if (!existsSync(sharedFixtures))
  console.warn(`[crashlab tests] ${sharedFixtures} is absent: the reference fixture CLI tests are skipped`)

describe('crashlab validate / inspect on cassettes', () => {
  it('accepts a cassette and inspects its steps and links', () => {
    const run = createRun({ name: 'refund-bot', input: 'Refund A17' })
    run.status = 'ok'
    run.outcome = 'pass'
    run.links.replayOf = createRun({ name: 'source' }).id
    run.steps.push({
      index: 0,
      type: 'tool',
      name: 'get_order',
      args: { id: 'A17' },
      result: { total: 49 },
      sideEffects: false,
      error: null,
      timing: { startedAt: run.startedAt, durationMs: 3 },
    })
    const file = join(dir, 'refund.cassette.json')
    writeCassette(file, run)
    expect(crashlab('validate', file).code).toBe(0)
    const r = crashlab('inspect', '--json', file)
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({
      kind: 'cassette',
      name: 'refund-bot',
      outcome: 'pass',
      status: 'ok',
      counts: { tool: 1 },
      provenance: { replayOf: run.links.replayOf },
    })
  })
  it('rejects a broken cassette with its code and the file name', () => {
    const file = join(dir, 'broken.cassette.json')
    writeFileSync(file, '{"format": "crashlab.cassette", "version": 1, ')
    const r = crashlab('validate', file)
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('E_CASSETTE_MALFORMED')
    expect(r.stderr).toContain('broken.cassette.json')
  })
  it('refuses a cassette from a newer crashlab', () => {
    const file = join(dir, 'future.cassette.json')
    writeFileSync(
      file,
      JSON.stringify({
        format: 'crashlab.cassette',
        version: 99,
        creator: { name: 'crashlab', version: '9.0.0' },
        run: {},
      }),
    )
    const r = crashlab('validate', file)
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('E_CASSETTE_VERSION')
    expect(r.stderr).toMatch(/newer/)
  })
  it('names a missing file', () => {
    const r = crashlab('validate', join(dir, 'nope.agentcase'))
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('E_FILE_NOT_FOUND')
  })
})

describe('crashlab scan', () => {
  it('exits 1 on a leaked key, naming file and location, without printing the secret', () => {
    const leakDir = join(dir, 'leaky')
    mkdirSync(leakDir, { recursive: true })
    const secret = 'sk-proj-' + 'Zq8Rt2Lm5Np7Vx3Wy6Kj9Hb4'.repeat(2)
    writeFileSync(
      join(leakDir, 'export.json'),
      JSON.stringify({ request: { headers: { note: `key ${secret}` } } }),
    )
    const r = crashlab('scan', leakDir)
    expect(r.code).toBe(1)
    expect(r.stdout + r.stderr).toContain('export.json')
    expect(r.stdout + r.stderr).not.toContain(secret)
  })
  it('passes a cassette that crashlab wrote (it is redacted)', () => {
    const cleanDir = join(dir, 'clean')
    mkdirSync(cleanDir, { recursive: true })
    const run = createRun({ name: 'leak-check', input: `use key sk-proj-${'Qw3Er5Ty7Ui9Op1As'.repeat(2)}` })
    writeCassette(join(cleanDir, 'run.cassette.json'), run)
    expect(readdirSync(cleanDir)).toEqual(['run.cassette.json'])
    const r = crashlab('scan', cleanDir)
    expect(r.stdout + r.stderr).toMatch(/no secrets|0 findings|clean/i)
    expect(r.code).toBe(0)
  })
})
