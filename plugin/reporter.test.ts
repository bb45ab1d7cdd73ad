import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pc from 'picocolors'
import { afterAll, describe, expect, it } from 'vitest'
import type { TestModule, Vitest } from 'vitest/node'
import type { CrashCellMeta, CrashlabTaskMeta, RunSummary } from '../fixtures/index.ts'
import { fileCassetteStore } from '../src/internal.ts'
import { partialRun, pruneUnused } from './internal/prune.ts'
import { RUN_TABLE_LIMIT, type RunRow, renderRunTable, runRowsOf } from './internal/run-table.ts'
import { CrashlabReporter, tallyCassettes } from './reporter.ts'

// Hand-built stand-ins for Vitest's TestModule and TestCase: only what the reporter reads.
type State = 'passed' | 'failed' | 'skipped' | 'pending'
interface FakeTest {
  name: string
  state?: State
  meta?: CrashlabTaskMeta
}

function fakeModule(moduleId: string, tests: FakeTest[]): TestModule {
  const cases = tests.map((t) => ({
    fullName: t.name,
    meta: () => (t.meta ? { crashlab: t.meta } : {}),
    result: () => ({ state: t.state ?? 'passed' }),
  }))
  return { moduleId, children: { allTests: () => cases[Symbol.iterator]() } } as unknown as TestModule
}

const root = mkdtempSync(join(tmpdir(), 'crashlab-reporter-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** A test file with a cassette folder holding `files`. */
function testFile(name: string, files: string[]): { file: string; cassette: (n: string) => string } {
  const file = join(root, name)
  const folder = join(root, '__cassettes__', name)
  mkdirSync(folder, { recursive: true })
  for (const f of files) writeFileSync(join(folder, f), '{}')
  return { file, cassette: (n) => join(folder, n) }
}

function cassetteMeta(
  path: string,
  action: 'replay' | 'record' | 'passthrough',
  extra: Partial<NonNullable<CrashlabTaskMeta['cassette']>> = {},
): NonNullable<CrashlabTaskMeta['cassette']> {
  return { path, action, written: false, replayed: false, missing: false, ...extra }
}

const summary = (extra: Partial<RunSummary> = {}): RunSummary => ({
  agent: 'refund-bot',
  status: 'ok',
  outcome: 'pass',
  steps: 5,
  llmCalls: 3,
  toolCalls: 2,
  tokens: 476,
  failedChecks: [],
  ...extra,
})

describe('tallyCassettes', () => {
  it('counts live tests; a cassette of a test that opted out with live() is stale, not owned', () => {
    const t = testFile('live.test.ts', [
      'replayed.cassette.json',
      'smoke.cassette.json',
      'gone.cassette.json',
    ])
    const tally = tallyCassettes(
      [
        fakeModule(t.file, [
          {
            name: 'replayed',
            meta: {
              cassette: cassetteMeta(t.cassette('replayed.cassette.json'), 'replay', { replayed: true }),
            },
          },
          {
            name: 'smoke',
            meta: { live: true, cassette: cassetteMeta(t.cassette('smoke.cassette.json'), 'passthrough') },
          },
          {
            name: 'no file',
            meta: { live: true, cassette: cassetteMeta(t.cassette('no file.cassette.json'), 'passthrough') },
          },
          { name: 'plain' },
        ]),
      ],
      undefined,
      'replay',
    )
    expect(tally).toEqual({
      recorded: 0,
      replayed: 1,
      missing: 0,
      live: 2,
      stale: [t.cassette('smoke.cassette.json')],
      unused: [t.cassette('gone.cassette.json')],
    })
  })

  it('a stale cassette is reported in a filtered run too; unused ones are not', () => {
    const t = testFile('filtered.test.ts', ['smoke.cassette.json', 'gone.cassette.json'])
    const tally = tallyCassettes([
      fakeModule(t.file, [
        {
          name: 'smoke',
          meta: { live: true, cassette: cassetteMeta(t.cassette('smoke.cassette.json'), 'passthrough') },
        },
        { name: 'other', state: 'skipped' },
      ]),
    ])
    expect(tally.stale).toEqual([t.cassette('smoke.cassette.json')])
    expect(tally.unused).toEqual([])
  })

  it('mode off: every test that called something is live and keeps its cassette; nothing is listed unused', () => {
    const t = testFile('off.test.ts', ['a.cassette.json', 'gone.cassette.json'])
    const tally = tallyCassettes(
      [
        fakeModule(t.file, [
          { name: 'a', meta: { cassette: cassetteMeta(t.cassette('a.cassette.json'), 'passthrough') } },
          { name: 'b', meta: { cassette: cassetteMeta(t.cassette('b.cassette.json'), 'passthrough') } },
          { name: 'calls nothing' },
        ]),
      ],
      undefined,
      'off',
    )
    expect(tally).toMatchObject({ live: 2, stale: [], unused: [] })
  })
})

describe('tallyCassettes: baselines and files no test owns', () => {
  it('a baseline joins the unused files when no test of its fully-run file has its name', () => {
    const t = testFile('baselines.test.ts', [
      'suite › kept.agentcase',
      'suite › kept.final.agentcase',
      'suite › gone.agentcase',
      'suite › gone.final.agentcase',
      'suite › gone.cassette.json',
    ])
    const tally = tallyCassettes([fakeModule(t.file, [{ name: 'suite > kept' }])], undefined, 'replay')
    expect(tally.unused).toEqual([
      t.cassette('suite › gone.agentcase'),
      t.cassette('suite › gone.cassette.json'),
      t.cassette('suite › gone.final.agentcase'),
    ])
  })

  it('keeps every file of a test that exists, and lists nothing of a file that did not run whole', () => {
    const t = testFile('partial.test.ts', ['a.agentcase', 'a.b.agentcase', 'gone.agentcase'])
    // `a.b.agentcase` is test `a.b`'s baseline or test `a`'s baseline `b`: a test that exists keeps it.
    expect(tallyCassettes([fakeModule(t.file, [{ name: 'a' }])]).unused).toEqual([
      t.cassette('gone.agentcase'),
    ])
    expect(
      tallyCassettes([fakeModule(t.file, [{ name: 'a' }, { name: 'b', state: 'skipped' }])]).unused,
    ).toEqual([])
  })

  it('a test file that failed to load owns nothing it can name: none of its files is unused', () => {
    const t = testFile('broken.test.ts', ['a.cassette.json', 'a.agentcase'])
    const module = Object.assign(fakeModule(t.file, []), { errors: () => [{ message: 'SyntaxError' }] })
    expect(tallyCassettes([module]).unused).toEqual([])
  })

  it("finds the files in the store's folder: the plugin's cassetteDir", () => {
    const file = join(root, 'custom.test.ts')
    mkdirSync(join(root, 'recordings', 'custom.test.ts'), { recursive: true })
    writeFileSync(join(root, 'recordings', 'custom.test.ts', 'gone.agentcase'), '{}')
    expect(tallyCassettes([fakeModule(file, [{ name: 'a' }])], 'recordings').unused).toEqual([
      join(root, 'recordings', 'custom.test.ts', 'gone.agentcase'),
    ])
  })
})

describe('partialRun: when --prune may remove files', () => {
  const vitest = (config: Record<string, unknown>, filenamePattern?: string[]) =>
    ({ config: { changed: false, ...config }, filenamePattern }) as unknown as Vitest

  it('a whole run prunes', () => {
    expect(partialRun(vitest({}), 'passed')).toBeUndefined()
    expect(partialRun(vitest({}, []), 'failed')).toBeUndefined()
  })

  it('a filtered, sharded, limited or interrupted run does not, and says why', () => {
    expect(partialRun(vitest({ testNamePattern: /clean/ }), 'passed')).toBe(
      'the run was filtered by test name (-t)',
    )
    expect(partialRun(vitest({ shard: { index: 2, count: 3 } }), 'passed')).toBe(
      'the run is one shard (--shard=2/3)',
    )
    expect(partialRun(vitest({}, ['refund']), 'passed')).toBe('the run was filtered by file (refund)')
    expect(partialRun(vitest({ changed: true }), 'passed')).toMatch(/--changed/)
    expect(partialRun(vitest({ related: ['src/a.ts'] }), 'passed')).toMatch(/--related/)
    expect(partialRun(vitest({ tagsFilter: ['slow'] }), 'passed')).toMatch(/--tags-filter/)
    expect(partialRun(vitest({}), 'interrupted')).toBe('the run was interrupted')
    expect(partialRun(undefined, 'passed')).toBeDefined()
    // A Vitest that does not keep its file filters where this one does cannot prove the run was whole.
    expect(partialRun({ config: { changed: false } } as unknown as Vitest, 'passed')).toMatch(
      /filtered by file/,
    )
  })
})

describe('pruneUnused', () => {
  const whole = { config: { changed: false }, filenamePattern: undefined } as unknown as Vitest
  const sharded = { config: { changed: false, shard: { index: 1, count: 2 } } } as unknown as Vitest

  it('removes the unused files after a whole run, and nothing after a partial one', () => {
    const t = testFile('prune.test.ts', ['gone.agentcase', 'gone.cassette.json', 'kept.agentcase'])
    const store = fileCassetteStore()
    const unused = [t.cassette('gone.agentcase'), t.cassette('gone.cassette.json')]
    expect(pruneUnused(store, unused, sharded, 'passed')).toEqual({
      removed: [],
      failed: [],
      refused: 'the run is one shard (--shard=1/2)',
    })
    expect(store.list(t.file).map((e) => e.name)).toEqual([
      'gone.agentcase',
      'gone.cassette.json',
      'kept.agentcase',
    ])
    expect(pruneUnused(store, unused, whole, 'passed')).toEqual({ removed: unused, failed: [] })
    expect(store.list(t.file).map((e) => e.name)).toEqual(['kept.agentcase'])
  })
})

describe('runRowsOf', () => {
  it('one row per test with a run summary, in run order, with its file, full name and state', () => {
    const rows = runRowsOf([
      fakeModule('/repo/a.test.ts', [
        { name: 'suite > one', meta: { run: summary() } },
        { name: 'no agent' },
      ]),
      fakeModule('/repo/b.test.ts', [
        { name: 'two', state: 'failed', meta: { run: summary({ outcome: 'fail' }) } },
      ]),
    ])
    expect(rows.map((r) => [r.file, r.test, r.state, r.run.outcome])).toEqual([
      ['/repo/a.test.ts', 'suite > one', 'passed', 'pass'],
      ['/repo/b.test.ts', 'two', 'failed', 'fail'],
    ])
  })
})

describe('renderRunTable', () => {
  const plain = pc.createColors(false)
  const row = (test: string, run: Partial<RunSummary> = {}, state: State = 'passed'): RunRow => ({
    file: '/repo/test/refund.test.ts',
    test,
    state,
    run: summary(run),
  })

  it('aligns the columns; cost and findings read "—" when unknown or absent', () => {
    const lines = renderRunTable(
      [
        row('clean refund', { costUsd: 0.012345, tokens: 1234 }),
        row('unpriced', { costUsd: null, findings: { info: 0, warn: 0, error: 0, critical: 0 } }),
        row('never priced'),
      ],
      { colors: plain },
    )
    expect(lines).toEqual([
      '  test            outcome  steps  tokens     cost  findings',
      '  ✓ clean refund  pass         5   1,234  $0.0123  —',
      '  ✓ unpriced      pass         5     476        —  —',
      '  ✓ never priced  pass         5     476        —  —',
      '  total: 3 runs · 2,186 tokens · $0.0123 (2 unpriced)',
    ])
  })

  it('puts failing rows first, then flagged ones, and names findings worst first', () => {
    const lines = renderRunTable(
      [
        row('clean'),
        row('warned', { findings: { info: 1, warn: 2, error: 0, critical: 0 } }),
        row(
          'over the limit',
          { outcome: 'fail', findings: { info: 0, warn: 2, error: 0, critical: 1 } },
          'failed',
        ),
        row('crashed', { status: 'error', outcome: 'unknown' }),
      ],
      { colors: plain },
    )
    expect(lines.slice(1, 5).map((l) => l.trim().split(/\s{2,}/))).toEqual([
      ['✗ over the limit', 'fail', '5', '476', '—', '1 critical, 2 warn'],
      ['✓ crashed', 'unknown, error', '5', '476', '—', '—'],
      ['✓ warned', 'pass', '5', '476', '—', '2 warn, 1 info'],
      ['✓ clean', 'pass', '5', '476', '—', '—'],
    ])
  })

  it(`shows at most ${RUN_TABLE_LIMIT} rows by default, then how many more, failing ones kept in view`, () => {
    const rows = Array.from({ length: 30 }, (_, i) => row(`case ${i + 1}`))
    rows[25] = row('case 26', { outcome: 'fail' }, 'failed')
    const lines = renderRunTable(rows, { colors: plain })
    expect(lines).toHaveLength(1 + RUN_TABLE_LIMIT + 2)
    expect(lines[1]).toContain('✗ case 26')
    expect(lines.at(-2)).toBe('  … 10 more, all passing')
    expect(lines.at(-1)).toBe('  total: 30 runs · 14,280 tokens')
    const few = renderRunTable(rows, { colors: plain, limit: 3 })
    expect(few.at(-2)).toBe('  … 27 more, all passing')
    const failing = renderRunTable([row('a', {}, 'failed'), row('b', {}, 'failed'), row('c')], {
      colors: plain,
      limit: 1,
    })
    expect(failing.at(-2)).toBe('  … 2 more (1 failing or flagged)')
  })

  it('names the file when the rows come from several files; cuts long names', () => {
    const lines = renderRunTable([row('a'), { ...row('b'.repeat(80)), file: '/repo/test/other.test.ts' }], {
      colors: plain,
    })
    expect(lines[1]).toContain('✓ refund.test.ts > a ')
    expect(lines[2]).toContain(`✓ other.test.ts > ${'b'.repeat(39)}… `)
  })

  it('is empty with no rows; colors only when asked', () => {
    expect(renderRunTable([])).toEqual([])
    const colored = renderRunTable([row('x', { outcome: 'fail' }, 'failed')], {
      colors: pc.createColors(true),
    })
    expect(colored.join('\n')).toContain('\u001b[31m')
    expect(
      renderRunTable([row('x', { outcome: 'fail' }, 'failed')], { colors: plain }).join('\n'),
    ).not.toContain('\u001b[')
  })
})

describe('CrashlabReporter', () => {
  async function report(modules: TestModule[], mode = 'replay'): Promise<string[]> {
    const logged: string[] = []
    const reporter = new CrashlabReporter({ getCassetteDir: () => undefined, getMode: () => mode })
    reporter.onInit({ config: { root }, logger: { log: (m: string) => logged.push(m) } } as never)
    await reporter.onTestRunEnd(modules)
    return logged
      .join('\n')
      .replace(/\u001b\[[0-9;]*m/g, '')
      .split('\n')
  }

  it('stays silent when no test touched crashlab', async () => {
    expect(
      await report([
        fakeModule(join(root, 'quiet.test.ts'), [{ name: 'a' }, { name: 'b', state: 'failed' }]),
      ]),
    ).toEqual([''])
  })

  it('lists stale cassettes under their own label, and puts the table after the cassette line', async () => {
    const t = testFile('report.test.ts', ['a.cassette.json', 'smoke.cassette.json'])
    const lines = await report([
      fakeModule(t.file, [
        {
          name: 'a',
          meta: {
            cassette: cassetteMeta(t.cassette('a.cassette.json'), 'replay', { replayed: true }),
            run: summary(),
          },
        },
        {
          name: 'smoke',
          meta: {
            live: true,
            cassette: cassetteMeta(t.cassette('smoke.cassette.json'), 'passthrough'),
            run: summary(),
          },
        },
      ]),
    ])
    expect(lines.slice(1, 4)).toEqual([
      ' crashlab  1 live · cassettes: 0 recorded · 1 replayed · 1 stale (mode replay)',
      '  stale (test is live): __cassettes__/report.test.ts/smoke.cassette.json',
      '  test     outcome  steps  tokens  cost  findings',
    ])
    expect(lines.at(-1)).toBe('  total: 2 runs · 952 tokens')
  })

  it('with live tests only (mode off), one line without cassette counts', async () => {
    const file = join(root, 'off.test.ts')
    const lines = await report(
      [fakeModule(file, [{ name: 'a', meta: { cassette: cassetteMeta(join(root, 'x'), 'passthrough') } }])],
      'off',
    )
    expect(lines).toEqual(['', ' crashlab  1 live, no cassette read or written (mode off)'])
  })

  it("draws each crash test's matrix from its cells' meta, in the order they were declared", async () => {
    const file = join(root, 'crash.test.ts')
    const cell = (
      step: number,
      stepName: string,
      fault: CrashCellMeta['fault'],
      label: string,
      outcome: CrashCellMeta['outcome'],
      detail = 'finished',
    ) => ({
      name: `crash: refund step ${step} × ${label}`,
      state: outcome === 'failed' ? ('failed' as const) : ('passed' as const),
      meta: {
        crash: {
          test: 'refund',
          cassette: join(root, 'refund.cassette.json'),
          step,
          stepType: stepName === 'llm' ? 'llm' : 'tool',
          stepName,
          fault,
          label,
          outcome,
          detail,
        } satisfies CrashCellMeta,
      },
    })
    const lines = await report([
      fakeModule(file, [
        cell(0, 'llm', { kind: 'rate_limit' }, '429 (retry-after 0s)', 'survived'),
        cell(1, 'get_order', { kind: 'tool_html_error' }, 'tool HTML error', 'failed', 'TypeError: x'),
        cell(2, 'llm', { kind: 'rate_limit' }, '429 (retry-after 0s)', 'diverged', 'asked for more'),
      ]),
    ])
    expect(lines.slice(1)).toEqual([
      ' crashlab  crash tests (mode replay)',
      '  crash: refund (crash.test.ts): 3 cells · 1 survived · 1 failed · 1 diverged',
      '    steps: 0 llm · 1 get_order · 2 llm',
      '                          0  1  2',
      '    429 (retry-after 0s)  ✓  ·  ~',
      '    tool HTML error       ·  ✗  ·',
      '    ✓ survived  ✗ failed  ~ diverged  · no cell',
      '',
      '    ✗ failed step 1 get_order × tool HTML error: TypeError: x',
      '    ~ diverged step 2 llm × 429 (retry-after 0s): asked for more',
    ])
  })
})
