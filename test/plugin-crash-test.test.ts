import { readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CrashCellMeta } from '../fixtures/index.ts'
import { ALL_MODEL_FAULTS, ALL_TOOL_FAULTS, faultLabel } from '../src/crash/index.ts'
import { runBin, runBinSync } from './helpers/built-bin.ts'
import { type ChildRun, cassettesOf, copyProject, removeProject, runFixture } from './projects/run-fixture.ts'

// The crash fixture project (test/projects/crash): a refund bot on the OpenAI SDK (maxRetries 2) with a
// tool() get_order, against the scripted provider, through crashlab's interceptor. crash.spec.ts has the
// agentCase test 'refund', crashTest('refund') over its cassette, and crashTest('never recorded') whose
// base case does not exist; survive.spec.ts crashes its own run with toSurvive. Each child is a real
// Vitest; the assertions read its JSON report (the cells' task meta) and what the provider received.
const FILE = 'crash.spec.ts'

interface JsonTest {
  fullName: string
  title: string
  ancestorTitles: string[]
  status: 'passed' | 'failed' | 'skipped' | 'pending'
  failureMessages: string[]
  meta?: { crashlab?: { crash?: CrashCellMeta | { missing: true; test: string } } }
}

interface Report {
  run: ChildRun
  tests: JsonTest[]
}

const copies: string[] = []
let dir: string
let recording: ChildRun
let first: Report
let second: Report
let cassetteAfterRecord: string

async function runJson(args: string[], options: Parameters<typeof runFixture>[2] = {}): Promise<Report> {
  const out = join(tmpdir(), `crashlab-crash-${process.pid}-${Math.random().toString(36).slice(2)}.json`)
  const run = await runFixture(dir, [...args, '--reporter=json', `--outputFile=${out}`], options)
  try {
    const json = JSON.parse(readFileSync(out, 'utf8')) as {
      testResults: Array<{ assertionResults: JsonTest[] }>
    }
    return { run, tests: json.testResults.flatMap((f) => f.assertionResults) }
  } catch (error) {
    throw new Error(`no JSON report (exit ${run.code}):\n${run.output}`, { cause: error })
  } finally {
    rmSync(out, { force: true })
  }
}

const cellsOf = (report: Report, suite = ['crash: refund']) =>
  report.tests.filter((t) => t.ancestorTitles.join(' > ') === suite.join(' > '))
const crashOf = (t: JsonTest) => t.meta?.crashlab?.crash as CrashCellMeta | undefined
const cassetteText = () => readFileSync(join(dir, '__cassettes__', FILE, 'refund.cassette.json'), 'utf8')

beforeAll(async () => {
  dir = copyProject('crash')
  copies.push(dir)
  // What the missing-cassette message tells people to run, for both base cases in the project.
  recording = await runFixture(dir, ['--record', 'run', '-t', 'refund', '--reporter=verbose'], {
    bin: 'crashlab',
  })
  if (recording.code !== 0) throw new Error(`the recording run failed:\n${recording.output}`)
  cassetteAfterRecord = cassetteText()
  // Replayed as CI does, then again locally (mode missing): the same cells, and nothing recorded.
  first = await runJson(['run'], { ci: true })
  second = await runJson(['run'])
}, 180_000)

afterAll(() => {
  for (const copy of copies) removeProject(copy)
})

describe('crashTest(): one Vitest test per cell', () => {
  it('in the run that records the base case, the crash test waits for the next run, saying so', () => {
    expect(recording.output).toMatch(
      /crash: refund.*the base case "refund" \(__cassettes__\/crash\.spec\.ts\/refund\.cassette\.json\) was recorded in this run; its crash variants run on the next run/,
    )
    expect(cassettesOf(dir, FILE)).toEqual(['nested › refund.cassette.json', 'refund.cassette.json'])
  })

  it('declares a test per fault at each step it fits, named step × fault', () => {
    // The recording: llm (asks for get_order), tool get_order, llm (answers).
    const expected = [
      ...ALL_MODEL_FAULTS.map((f) => `step 0 (llm) × ${faultLabel(f)}`),
      ...ALL_TOOL_FAULTS.map((f) => `step 1 (tool) × ${faultLabel(f)}`),
      ...ALL_MODEL_FAULTS.map((f) => `step 2 (llm) × ${faultLabel(f)}`),
    ]
    const cells = cellsOf(first)
    expect(cells.map((t) => t.title)).toEqual(expected)
    expect(cells).toHaveLength(25)
    expect(cells[0]?.fullName).toBe('crash: refund step 0 (llm) × 429 (retry-after 0s)')
    for (const t of cells) expect(crashOf(t)?.test).toBe('refund')
  })

  it('a 429 at every model step survives: the SDK retries and the retry is served from the recording', () => {
    const cells = cellsOf(first).filter((t) => t.title.endsWith('× 429 (retry-after 0s)'))
    expect(cells.map((t) => crashOf(t)?.step)).toEqual([0, 2])
    for (const t of cells) {
      expect(t.status).toBe('passed')
      expect(crashOf(t)).toMatchObject({
        stepType: 'llm',
        fault: { kind: 'rate_limit' },
        outcome: 'survived',
      })
    }
  })

  it('an HTML page from the tool fails the cell: the bot reads a field of it and throws', () => {
    const cell = cellsOf(first).find((t) => t.title === 'step 1 (tool) × tool HTML error')
    expect(cell?.status).toBe('failed')
    expect(crashOf(cell as JsonTest)).toMatchObject({
      outcome: 'failed',
      detail: expect.stringMatching(/^TypeError: /),
    })
    const message = cell?.failureMessages.join('\n') ?? ''
    expect(message).toContain('did not survive step 1 (tool) × tool HTML error of "refund": TypeError')
    expect(message).toContain("crashTest's `faults` or `steps`")
  })

  it('a tool that throws makes the bot tell the model, which the recording never heard: diverged, and the test passes', () => {
    const cell = cellsOf(first).find((t) => t.title === 'step 1 (tool) × tool throws')
    expect(cell?.status).toBe('passed')
    expect(crashOf(cell as JsonTest)).toMatchObject({
      outcome: 'diverged',
      detail: expect.stringContaining('the recording does not hold'),
    })
  })

  it('no request reaches the provider while the variants run, and the cassette is left as recorded', () => {
    const crashFile = first.run.log.find((l) => !('file' in l))
    expect(crashFile).toEqual({ requests: 0, refunds: 0 })
    expect(second.run.log.find((l) => !('file' in l))).toEqual({ requests: 0, refunds: 0 })
    expect(cassetteText()).toBe(cassetteAfterRecord)
    // The cells' own tests record nothing, even in mode missing.
    expect(cassettesOf(dir, FILE)).toEqual(['nested › refund.cassette.json', 'refund.cassette.json'])
  })

  it('is deterministic: the same run twice gives the same cells, outcomes and details', () => {
    const cells = (r: Report) =>
      cellsOf(r).map((t) => {
        const c = crashOf(t) as CrashCellMeta
        // The variant's Session is named after its test; the rest must not change.
        return [t.title, t.status, c.outcome, c.detail]
      })
    expect(cells(second)).toEqual(cells(first))
    const outcomes = new Set(cellsOf(first).map((t) => crashOf(t)?.outcome))
    expect([...outcomes].sort()).toEqual(['diverged', 'failed', 'survived'])
  })

  it('a crash test whose base case has no cassette is one failing test that names the record command', () => {
    const missing = first.tests.filter((t) => t.fullName.startsWith('crash: never recorded'))
    expect(missing.map((t) => [t.fullName, t.status])).toEqual([['crash: never recorded', 'failed']])
    const message = missing[0]?.failureMessages.join('\n') ?? ''
    expect(message).toContain('crash test "never recorded" has nothing to crash')
    expect(message).toContain('npx crashlab vitest --record run crash.spec.ts -t "never recorded"')
    expect(message).toContain('its crash variants appear on the next run')
    expect(missing[0]?.meta?.crashlab?.crash).toMatchObject({ test: 'never recorded', missing: true })
    expect(first.run.code).toBe(1)
  })

  it('in a describe, crashes the test of that name in the describe; `cassette` names another test file path', () => {
    const nested = cellsOf(first, ['nested', 'crash: refund'])
    expect(nested.map((t) => [t.fullName, t.status])).toEqual([
      ['nested crash: refund step 0 (llm) × 429 (retry-after 0s)', 'passed'],
    ])
    expect(crashOf(nested[0] as JsonTest)).toMatchObject({
      test: 'nested > refund',
      cassette: expect.stringMatching(/__cassettes__\/crash\.spec\.ts\/nested › refund\.cassette\.json$/),
      outcome: 'survived',
    })
    const byPath = cellsOf(first, ['crash: refund by path'])
    expect(byPath.map((t) => [t.title, t.status])).toEqual([['step 2 (llm) × 500', 'passed']])
    expect(crashOf(byPath[0] as JsonTest)?.cassette).toMatch(
      /__cassettes__\/crash\.spec\.ts\/refund\.cassette\.json$/,
    )
  })

  it("crashlab's reporter sums up each crash test's cells", () => {
    const cells = cellsOf(first)
    const n = (outcome: string) => cells.filter((t) => crashOf(t)?.outcome === outcome).length
    expect(n('survived')).toBeGreaterThan(0)
    expect(first.run.output).toContain(
      `  crash: refund (${FILE}): 25 cells · ${n('survived')} survived · ${n('failed')} failed · ${n('diverged')} diverged`,
    )
    expect(first.run.output).toContain(
      `  crash: nested > refund (${FILE}): 1 cell · 1 survived · 0 failed · 0 diverged`,
    )
    // Then its matrix: a row per fault, a column per step, and why each cell that did not survive.
    const matrix = first.run.output.slice(first.run.output.indexOf('  crash: refund ('))
    expect(matrix).toContain('    steps: 0 llm · 1 get_order · 2 llm\n')
    expect(matrix).toMatch(/\n {4}429 \(retry-after 0s\) +✓ {2}· {2}✓\n/)
    expect(matrix).toMatch(/\n {4}tool HTML error +· {2}✗ {2}·\n/)
    expect(matrix).toMatch(/\n {4}✗ failed step 1 get_order × tool HTML error: TypeError: /)
  })

  it("`crashlab report <base> --html` draws the newest session's cells as a grid coloured by outcome", () => {
    const out = join(dir, 'refund-report.html')
    const cassette = join('__cassettes__', FILE, 'refund.cassette.json')
    const r = runBinSync(dir, { CRASHLAB_DIR: '' }, 'report', cassette, '--html', out)
    expect(r.code, r.stderr).toBe(0)
    const html = readFileSync(out, 'utf8')
    expect(html).toContain('<section id="crash-tests"><h2>Crash tests (25)</h2>')
    const drawn = [
      ...html.matchAll(/<td class="crash-cell" data-outcome="(\w+)" title="step (\d+) × ([^:]+):/g),
    ]
      .map((m) => `${m[2]} ${m[3]} ${m[1]}`)
      .sort()
    const ran = cellsOf(second)
      .map((t) => crashOf(t) as CrashCellMeta)
      .map((c) => `${c.step} ${c.label} ${c.outcome}`)
      .sort()
    expect(drawn).toEqual(ran)
    expect(html).toContain('TypeError')
  })

  it('-t picks cells like any test; each cell is annotated with its outcome, a diverged one with what the agent asked for', async () => {
    const picked = await runJson(['run', '-t', 'tool (HTML error|throws)', '--reporter=verbose'], {
      ci: true,
    })
    const ran = picked.tests.filter((t) => t.status !== 'skipped' && t.status !== 'pending')
    expect(ran.map((t) => [t.fullName, t.status])).toEqual([
      ['crash: refund step 1 (tool) × tool throws', 'passed'],
      ['crash: refund step 1 (tool) × tool HTML error', 'failed'],
    ])
    // The annotation: the call that did not match and its changed field (the tool's error, told to the model).
    expect(picked.run.output).toMatch(
      /~ diverged: step 1 \(tool\) × tool throws of "refund": replay of test "crash: refund > step 1 \(tool\) × tool throws" .* diverged at step 2: the agent made a openai-chat chat\.completions call/,
    )
    expect(picked.run.output).toMatch(/✗ failed: step 1 \(tool\) × tool HTML error of "refund": TypeError: /)
    expect(picked.run.output).toMatch(
      /✖ message 2 \(tool\), part 0 \(tool_result\): content: .*\{\\"error\\":/,
    )
    expect(picked.run.output).not.toContain('If the change is intended')
  }, 60_000)
})

describe("crashlab crash-test of an agentCase test's run", () => {
  it('the test runs the cells after replaying its run: the matrix, the variants stored, nothing sent', async () => {
    const cassette = join('__cassettes__', FILE, 'refund.cassette.json')
    const faults = 'rate_limit,tool_html_error,tool_throw'
    const log = join(tmpdir(), `crashlab-crash-cli-${process.pid}.jsonl`)
    rmSync(log, { force: true })
    const r = await runBin(dir, { CRASHLAB_DIR: '', FIXTURE_LOG: log }, [
      'crash-test',
      cassette,
      '--faults',
      faults,
    ])
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(1)
    expect(r.stdout).toContain('steps: 0 llm · 1 get_order · 2 llm\n')
    expect(r.stdout).toMatch(/\n429 \(retry-after 0s\) +✓ {2}· {2}✓\n/)
    expect(r.stdout).toMatch(/\ntool HTML error +· {2}✗ {2}·\n/)
    expect(r.stdout).toMatch(/\ntool throws +· {2}~ {2}·\n/)
    expect(r.stdout).toContain('4 cells: 2 survived, 1 failed, 1 diverged')
    expect(r.stdout).toContain('network: nothing sent')
    // The Vitest child's provider: the base replay and every variant, nothing reached it.
    const logged = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as unknown)
    rmSync(log, { force: true })
    expect(logged).toEqual([{ requests: 0, refunds: 0 }])
    const listed = runBinSync(dir, { CRASHLAB_DIR: '' }, 'ls', '--tag', 'crash-test', '--json')
    const variants = JSON.parse(listed.stdout) as Array<{ id: string; replayOf: string | null }>
    expect(variants).toHaveLength(4)
    const { run } = JSON.parse(readFileSync(join(dir, cassette), 'utf8')) as { run: { id: string } }
    for (const v of variants) expect(v.replayOf).toBe(run.id)
  }, 120_000)
})

describe('toSurvive()', () => {
  it('passes for faults the agent survives, fails listing each failed cell with why, and lists diverged ones', async () => {
    const messageFile = join(tmpdir(), `crashlab-survive-${process.pid}.txt`)
    try {
      const run = await runFixture(dir, ['run', 'survive'], {
        ci: true,
        env: { FIXTURE_SURVIVE_MESSAGE: messageFile },
      })
      expect(run.code, run.output).toBe(0)
      // The replayed test and every variant its matchers ran: nothing reached the provider.
      expect(run.log).toEqual([
        { file: 'survive', requests: 0, requestsBeforeCrash: 0, requestsAfterCrash: 0 },
      ])
      const message = readFileSync(messageFile, 'utf8')
      expect(message).toContain(
        'Expected the agent to survive every fault, but 1 of 3 cells survived, 1 failed, 1 diverged:',
      )
      expect(message).toMatch(/✖ step 1 \(tool\) × tool HTML error: TypeError: /)
      expect(message).toMatch(
        /Diverged \(not a failure[^)]*\):\n {2}↷ step 1 \(tool\) × tool throws: asked at step 2 for openai-chat chat.completions call the recording does not hold: /,
      )
      expect(message).not.toContain('429')
    } finally {
      rmSync(messageFile, { force: true })
    }
  }, 60_000)
})
