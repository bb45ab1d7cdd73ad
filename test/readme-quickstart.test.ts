import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { refundModel } from '../examples/refund-bot/scripted-model.ts'
import { type ScriptedProvider, startScriptedProvider } from '../src/testing/index.ts'
import { PROJECTS, removeProject, runFixture } from './projects/run-fixture.ts'

// The README's quickstart, followed literally: its code blocks are extracted from README.md and written
// into a fresh project, crashlab is the packed package (what `npm install crashlab` unpacks), and the
// steps run in order: record against a local model server, replay, CI, a prompt change, re-record.
const ROOT = resolve(import.meta.dirname, '..')
const README = readFileSync(join(ROOT, 'README.md'), 'utf8')
const QUICKSTART = section(README, '## Quickstart: your first agent test')
const RE_RECORD = 'npx crashlab vitest run --record -u'

/** The text of one `## ` section of a Markdown document, up to the next `## ` heading. */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`${heading}\n`)
  if (start === -1) throw new Error(`README.md has no "${heading}" section`)
  const end = markdown.indexOf('\n## ', start + heading.length)
  return markdown.slice(start, end === -1 ? undefined : end)
}

/** The section's TypeScript blocks that name their file on their first line (`// refund-bot.ts`). */
function filesOf(markdown: string): Map<string, string> {
  const files = new Map<string, string>()
  for (const match of markdown.matchAll(/```ts\n\/\/ ([\w./-]+\.ts)\n([\s\S]*?)```/g)) {
    const [, name, body] = match
    if (name && body !== undefined) files.set(name, `// ${name}\n${body}`)
  }
  return files
}

/** The packed package unpacked into `<dir>/node_modules/crashlab`, its bin linked as npm does. */
function installPacked(dir: string): string {
  const scratch = mkdtempSync(join(tmpdir(), 'crashlab-readme-pack-'))
  try {
    // --ignore-scripts: the suite's global setup built dist/ already; `prepare` would rebuild it under
    // the feet of the tests running beside this one.
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], {
        cwd: ROOT,
        encoding: 'utf8',
      }),
    ) as Array<{ filename: string }>
    const target = join(dir, 'node_modules', 'crashlab')
    mkdirSync(target, { recursive: true })
    execFileSync('tar', [
      '-xzf',
      join(scratch, packed[0]?.filename ?? ''),
      '-C',
      target,
      '--strip-components=1',
    ])
    const bin = join(dir, 'node_modules', '.bin', 'crashlab')
    mkdirSync(dirname(bin), { recursive: true })
    symlinkSync('../crashlab/dist/src/cli/bin.js', bin)
    return join(target, 'dist', 'src', 'cli', 'bin.js')
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}

describe("the README's quickstart, through the packed package", () => {
  const files = filesOf(QUICKSTART)
  let dir = ''
  let bin = ''
  let provider: ScriptedProvider

  beforeAll(async () => {
    dir = mkdtempSync(join(PROJECTS, 'readme-quickstart.tmp-'))
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ name: 'quickstart', private: true, type: 'module' }),
    )
    for (const [name, text] of files) writeFileSync(join(dir, name), text)
    bin = installPacked(dir)
    provider = await startScriptedProvider({ policy: refundModel(), seed: 1 })
  }, 120_000)
  afterAll(async () => {
    await provider?.close()
    removeProject(dir)
  })

  /** A local model server as the README's record step uses one: its address in OPENAI_BASE_URL, no key. */
  const localServer = () => ({ OPENAI_BASE_URL: `${provider.url}/v1` })
  const cassette = () => join(dir, '__cassettes__', 'refund.test.ts', 'refund.cassette.json')
  const baseline = () => join(dir, '__cassettes__', 'refund.test.ts', 'refund.agentcase')
  const crashlabVitest = (args: string[], env: Record<string, string>) => execFileAsync(bin, args, env)

  it('holds the files it needs and names the commands this test runs', () => {
    expect([...files.keys()].sort()).toEqual(['refund-bot.ts', 'refund.test.ts', 'vitest.config.ts'])
    expect(QUICKSTART).toContain('OPENAI_BASE_URL=http://127.0.0.1:11434/v1')
    expect(QUICKSTART).toContain(RE_RECORD)
    expect(QUICKSTART).toContain('npm install -D node@22')
  })

  it('records against a local model server on a port nobody listed, then replays, offline under CI', {
    timeout: 180_000,
  }, async () => {
    const recorded = await runFixture(dir, ['run'], { env: localServer() })
    if (recorded.code !== 0) throw new Error(recorded.output)
    expect(provider.requests).toHaveLength(3)
    const run = (JSON.parse(readFileSync(cassette(), 'utf8')) as { run: { steps: Array<{ type: string }> } })
      .run
    expect(run.steps.filter((s) => s.type === 'llm')).toHaveLength(3)
    expect(run.steps.filter((s) => s.type === 'tool').map((s) => (s as { name?: string }).name)).toEqual([
      'get_order',
      'issue_refund',
    ])
    expect(existsSync(baseline())).toBe(true)

    // 2. Replay: no server address, no key; nothing reaches the provider.
    const replayed = await runFixture(dir, ['run'], {})
    if (replayed.code !== 0) throw new Error(replayed.output)
    // 3. CI: replay only.
    const ci = await runFixture(dir, ['run'], { ci: true })
    if (ci.code !== 0) throw new Error(ci.output)
    expect(ci.output).toMatch(/Tests\s+1 passed/)
    expect(provider.requests).toHaveLength(3)
  })

  it('fails a changed prompt in CI with the re-record command, and the one command re-records and accepts it', {
    timeout: 180_000,
  }, async () => {
    const agent = join(dir, 'refund-bot.ts')
    const before = readFileSync(agent, 'utf8')
    writeFileSync(agent, before.replace('You refund damaged orders.', 'You refund damaged orders politely.'))
    expect(readFileSync(agent, 'utf8')).not.toBe(before)

    const ci = await runFixture(dir, ['run'], { ci: true })
    expect(ci.code).toBe(1)
    expect(ci.output).toContain('politely')
    expect(ci.output).toContain('crashlab vitest')

    // 4. The README's one command, as `npx crashlab` runs it: the packed package's bin.
    const args = RE_RECORD.split(' ').slice(2)
    const again = await crashlabVitest(args, localServer())
    if (again.code !== 0) throw new Error(again.output)
    expect(readFileSync(cassette(), 'utf8')).toContain('politely')
    const green = await runFixture(dir, ['run'], { ci: true })
    if (green.code !== 0) throw new Error(green.output)
  })

  /** Runs the unpacked bin in the project, with `env` over a clean one (no CI variables). */
  function execFileAsync(
    script: string,
    args: string[],
    env: Record<string, string>,
  ): Promise<{ code: number; output: string }> {
    return new Promise((done) => {
      const clean: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1', ...env }
      for (const key of Object.keys(clean))
        if (key === 'CI' || key.startsWith('VITEST') || key === 'CRASHLAB_RECORD') delete clean[key]
      const child = spawn(process.execPath, [script, ...args], { cwd: dir, env: clean })
      let output = ''
      child.stdout.on('data', (d: Buffer) => (output += d))
      child.stderr.on('data', (d: Buffer) => (output += d))
      child.on('close', (code) => done({ code: code ?? 1, output }))
    })
  }
})
