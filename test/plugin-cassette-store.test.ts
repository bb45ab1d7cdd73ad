import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BUILT_BIN } from './helpers/built-bin.ts'
import { type ChildRun, copyProject, expectExit, removeProject, runFixture } from './projects/run-fixture.ts'

// The obsolete fixture project (test/projects/obsolete): the plugin sets `cassetteDir: 'recordings'`;
// two test files match hand-built runs against their AgentCase baselines and call no model. The runs
// with --prune go through the built `crashlab vitest`, as users run it.
const DIR = 'recordings'
const copies: string[] = []
let seeded: string
let first: ChildRun

function copy(from: string, withCassettes = false): string {
  const dir = copyProject(from, { withCassettes })
  copies.push(dir)
  return dir
}

function filesOf(dir: string, testFile: string): string[] {
  const folder = join(dir, DIR, testFile)
  return existsSync(folder) ? readdirSync(folder).sort() : []
}

/** `crashlab vitest <args>` with the built bin, in `dir`, under CI (baselines are compared, never written). */
function crashlabVitest(dir: string, args: readonly string[]): Promise<ChildRun> {
  return runFixture(dir, ['vitest', ...args], { vitestBin: BUILT_BIN, ci: true })
}

/** A copy of the seeded project with files no test owns: a cassette (with a sidecar) and two baselines. */
function withObsolete(): string {
  const dir = copy(seeded, true)
  const a = join(dir, DIR, 'a.spec.ts')
  writeFileSync(join(a, 'refund › gone.cassette.json'), '{}')
  mkdirSync(join(a, 'refund › gone.cassette.files'))
  writeFileSync(join(a, 'refund › gone.cassette.files', 'f'.repeat(64)), 'bytes')
  writeFileSync(join(a, 'refund › gone.agentcase'), '{}')
  writeFileSync(join(dir, DIR, 'b.spec.ts', 'removed.final.agentcase'), '{}')
  return dir
}

const KEPT_A = ['refund › clean.agentcase', 'refund › named.final.agentcase']
const OBSOLETE_A = ['refund › gone.agentcase', 'refund › gone.cassette.files', 'refund › gone.cassette.json']

beforeAll(async () => {
  seeded = copy('obsolete')
  first = await runFixture(seeded, ['run'])
  expectExit(first, 0)
}, 120_000)
afterAll(() => {
  for (const dir of copies) removeProject(dir)
})

describe('cassette storage in a real Vitest run', { timeout: 120_000 }, () => {
  it("writes baselines into the plugin's cassetteDir, beside the cassettes, not into __cassettes__", async () => {
    expect(filesOf(seeded, 'a.spec.ts')).toEqual(KEPT_A)
    expect(filesOf(seeded, 'b.spec.ts')).toEqual(['other.agentcase'])
    expect(existsSync(join(seeded, '__cassettes__'))).toBe(false)
    // Under CI nothing may be written: the baselines are found where they were written, and match.
    const again = await runFixture(copy(seeded, true), ['run'], { ci: true })
    expectExit(again, 0)
    expect(again.output).toMatch(/Tests\s+3 passed/)
  })

  it('reports the cassettes and baselines whose test no longer exists, and keeps them', async () => {
    const dir = withObsolete()
    const run = await crashlabVitest(dir, ['run'])
    expectExit(run, 0)
    expect(run.output).toContain('3 unused (mode replay)')
    for (const file of ['a.spec.ts/refund › gone.agentcase', 'a.spec.ts/refund › gone.cassette.json'])
      expect(run.output).toContain(`unused: ${DIR}/${file}`)
    expect(run.output).toContain(`unused: ${DIR}/b.spec.ts/removed.final.agentcase`)
    expect(run.output).not.toContain('--prune')
    expect(filesOf(dir, 'a.spec.ts')).toEqual([...KEPT_A, ...OBSOLETE_A].sort())
  })

  it('--prune after a whole run removes them (a cassette with its sidecar files), and says so', async () => {
    const dir = withObsolete()
    const run = await crashlabVitest(dir, ['--prune', 'run'])
    expectExit(run, 0)
    expect(run.output).toContain('--prune: removed 3 unused files')
    expect(run.output).toContain(`pruned: ${DIR}/a.spec.ts/refund › gone.cassette.json`)
    expect(filesOf(dir, 'a.spec.ts')).toEqual(KEPT_A)
    expect(filesOf(dir, 'b.spec.ts')).toEqual(['other.agentcase'])
  })

  it.each([
    ['-t', ['-t', 'clean'], 'the run was filtered by test name (-t)'],
    ['a file filter', ['a.spec.ts'], 'the run was filtered by file (a.spec.ts)'],
    ['--shard', ['--shard=1/2'], 'the run is one shard (--shard=1/2)'],
  ])('--prune with %s removes nothing, and says why', async (_, args, why) => {
    const dir = withObsolete()
    const run = await crashlabVitest(dir, ['--prune', 'run', ...args])
    expectExit(run, 0)
    expect(run.output).toContain(`--prune: nothing removed`)
    expect(run.output).toContain(`${why}; only a whole run (no -t, no --shard, no file filter) prunes.`)
    expect(run.output).not.toContain('pruned:')
    expect(filesOf(dir, 'a.spec.ts')).toEqual([...KEPT_A, ...OBSOLETE_A].sort())
    expect(filesOf(dir, 'b.spec.ts')).toEqual(['other.agentcase', 'removed.final.agentcase'])
  })
})
