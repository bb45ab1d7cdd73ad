import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BUILT_BIN } from './helpers/built-bin.ts'

// The store commands through the real bin, in a temp folder with a store of its own: the refund-bot's
// committed runs (one passes its oracle, one refunds ten times the total) are imported, then listed,
// shown, checked and exported.
const root = resolve(import.meta.dirname, '..')
const bin = BUILT_BIN
const CASSETTES = join(root, 'examples/refund-bot/__cassettes__')
const CLEAN = join(CASSETTES, 'refund-a17.cassette.json')
const VIOLATION = join(CASSETTES, 'refund-a17-violation.cassette.json')
const CLEAN_ID = '01M8KT641KV9P7GYP4TQ09Y4VQ'
const VIOLATION_ID = '01M8KT643TKE0YKKFY94CFE3AY'

let dir: string
let store: string

function crashlab(...args: string[]) {
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1', CRASHLAB_DIR: store }
  delete env.CRASHLAB_CONFIG
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: dir, encoding: 'utf8', env })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'crashlab-cli-store-'))
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n')
  store = join(dir, 'runs')
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('the store commands', () => {
  it('import: a cassette and an agentcase into the store', () => {
    const r = crashlab('import', CLEAN, VIOLATION, '--tag', 'demo')
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(`as ${CLEAN_ID} (refund-bot, 5 steps)`)
    expect(r.stdout).toContain(`as ${VIOLATION_ID}`)
  })

  it('ls: both runs, newest first, with outcome, steps and tags; --json; filters', () => {
    const r = crashlab('ls')
    expect(r.code).toBe(0)
    const lines = r.stdout.trim().split('\n')
    expect(lines[0]).toMatch(/^id\s+name\s+status\s+outcome\s+steps\s+tokens\s+cost\s+findings\s+tags$/)
    expect(lines).toHaveLength(3)
    expect(r.stdout).toMatch(new RegExp(`${VIOLATION_ID}\\s+refund-bot\\s+ok\\s+fail\\s+5`))
    expect(r.stdout).toMatch(/imported,demo|demo,imported/)
    const json = JSON.parse(crashlab('ls', '--json').stdout) as Array<{ id: string }>
    expect(json.map((x) => x.id).sort()).toEqual([CLEAN_ID, VIOLATION_ID].sort())
    const flagged = JSON.parse(crashlab('ls', '--flagged', '--json').stdout) as Array<{ id: string }>
    expect(flagged.map((x) => x.id)).toEqual([VIOLATION_ID])
    expect(JSON.parse(crashlab('ls', '--tag', 'nope', '--json').stdout)).toEqual([])
    const bad = crashlab('ls', '--min-severity', 'fatal')
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('--min-severity must be one of info, warn, error, critical')
  })

  it('show: checks, findings and the step table of a run, by prefix', () => {
    const r = crashlab('show', VIOLATION_ID.slice(0, 12))
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(
      '✖ refundNeverExceedsTotal: refund for A17: expected 490 to be less than or equal to 49',
    )
    expect(r.stdout).toMatch(/^\s+#\s+kind\s+name\s+in\s+out\s+error$/m)
    expect(r.stdout).toMatch(/^\s+3\s+tool\s+issue_refund\s+\{"amount":490,"order_id":"A17"\}/m)
  })

  it('show: an unknown run names it and the next command', () => {
    const r = crashlab('show', 'ZZZZZZ')
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('ZZZZZZ')
    expect(r.stderr).toContain('crashlab ls')
  })

  it('check: exits 1 for the run whose oracle failed, 0 with --findings-only; --max-cost on an unknown cost fails', () => {
    const failing = crashlab('check', VIOLATION_ID)
    expect(failing.code).toBe(1)
    expect(failing.stdout).toContain('check refundNeverExceedsTotal failed')
    expect(failing.stdout).toContain('0 passed, 1 failed')
    expect(crashlab('check', VIOLATION_ID, '--findings-only').code).toBe(0)
    const all = crashlab('check', '--all')
    expect(all.code).toBe(1)
    expect(all.stdout).toContain('1 passed, 1 failed')
    // The runs called the scripted provider on loopback: $0, a known cost.
    expect(crashlab('check', CLEAN_ID, '--max-cost', '0.01').code).toBe(0)
    const usage = crashlab('check')
    expect(usage.code).toBe(1)
    expect(usage.stderr).toContain('needs a run')
  })

  it('report: text in the terminal, or one HTML file', () => {
    const text = crashlab('report', VIOLATION_ID)
    expect(text.stderr).toBe('')
    expect(text.code).toBe(0)
    expect(text.stdout).toContain('refundNeverExceedsTotal')
    expect(text.stdout).toContain(`npx crashlab show ${VIOLATION_ID}`)
    const out = join(dir, 'report.html')
    const html = crashlab('report', VIOLATION_ID, '--html', out)
    expect(html.code).toBe(0)
    const page = readFileSync(out, 'utf8')
    expect(page.toLowerCase()).toContain('<!doctype html>')
    expect(page).toContain('refundNeverExceedsTotal')
    expect(page).not.toContain('<script')
  })

  it('bad input: a missing file to import, a corrupt store index, each named with the next step', () => {
    const missing = crashlab('import', join(dir, 'nope.cassette.json'))
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain(join(dir, 'nope.cassette.json'))
    expect(missing.stderr).toContain('(E_FILE_NOT_FOUND)')
    const broken = join(dir, 'broken-store')
    mkdirSync(broken, { recursive: true })
    writeFileSync(join(broken, 'index.db'), 'this is not an SQLite database, it is a text file'.repeat(200))
    const env = { ...process.env, NO_COLOR: '1', CRASHLAB_DIR: broken }
    const r = spawnSync(process.execPath, [bin, 'ls'], { cwd: dir, encoding: 'utf8', env })
    expect(r.status).toBe(1)
    expect(r.stderr).toContain(join(broken, 'index.db'))
    expect(r.stderr).toContain('(E_STORE_CORRUPT)')
    const json = join(dir, 'not-a-run.json')
    writeFileSync(json, '{"hello": "world"}')
    const unknown = crashlab('import', json)
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('neither an AgentCase')
  })

  it('export: a cassette and an agentcase that read back, redacted', () => {
    const out = join(dir, 'out.agentcase')
    const r = crashlab('export', VIOLATION_ID, '-o', out)
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(existsSync(out)).toBe(true)
    expect(crashlab('validate', out).code).toBe(0)
    const cassette = join(dir, 'out.cassette.json')
    expect(crashlab('export', 'last', '-o', cassette).code).toBe(0)
    expect(JSON.parse(readFileSync(cassette, 'utf8')).run.id).toMatch(/^01M8KT64/)
    // Round trip: the exported case imports back as the same run.
    expect(crashlab('import', out).stdout).toContain(`as ${VIOLATION_ID}`)
  })
})
