import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BUILT_BIN } from './helpers/built-bin.ts'

const bin = BUILT_BIN

/** The real `crashlab` command, run in `cwd`. */
function crashlab(cwd: string, ...args: string[]) {
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1' }
  delete env.CRASHLAB_CONFIG
  const r = spawnSync(process.execPath, [bin, ...args], { cwd, encoding: 'utf8', env })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'crashlab-cli-config-'))
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n')
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('crashlab config', () => {
  it('says when there is no config file', () => {
    const r = crashlab(dir, 'config')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('No config file')
  })

  it('prints the file it found and what it says, RegExps and functions by name', () => {
    writeFileSync(
      join(dir, 'crashlab.config.ts'),
      `const ticket: RegExp = /ACME-\\d{6}/
export default {
  checks: { maxSteps: 12 },
  redaction: { patterns: [{ id: 'acme', pattern: ticket }], hooks: { emails: function stripEmails(v: string) { return v } } },
}
`,
    )
    const r = crashlab(dir, 'config', '--json')
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const shown = JSON.parse(r.stdout)
    expect(shown.path).toBe(join(dir, 'crashlab.config.ts'))
    expect(shown.config.checks).toEqual({ maxSteps: 12 })
    expect(shown.config.redaction.patterns[0].pattern).toBe('/ACME-\\d{6}/')
    expect(shown.config.redaction.hooks.emails).toBe('[function stripEmails]')
  })

  it('exits 1 on a bad key, naming it; scan refuses to run on a bad config too', () => {
    writeFileSync(join(dir, 'crashlab.config.ts'), 'export default { checks: { warnAt: 3 }, extra: 1 }\n')
    const r = crashlab(dir, 'config')
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('is not a valid crashlab config')
    expect(r.stderr).toContain('$.checks.warnAt')
    expect(r.stderr).toContain('unknown key "extra"')
    expect(r.stderr).toContain('(E_CONFIG_INVALID)')
    const scan = crashlab(dir, 'scan', dir)
    expect(scan.code).toBe(1)
    expect(scan.stderr).toContain('$.checks.warnAt')
  })

  it("scan uses the config file's redaction patterns to find secrets", () => {
    writeFileSync(
      join(dir, 'crashlab.config.ts'),
      "export default { redaction: { patterns: [{ id: 'acme-ticket', pattern: /ACME-\\d{6}/ }] } }\n",
    )
    writeFileSync(join(dir, 'leak.cassette.json'), JSON.stringify({ note: 'ticket ACME-123456' }))
    const r = crashlab(dir, 'scan', join(dir, 'leak.cassette.json'))
    expect(r.code).toBe(1)
    expect(r.stdout).toContain('acme-ticket')
  })
})
