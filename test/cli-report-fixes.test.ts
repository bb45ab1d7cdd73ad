import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Run } from '../src/case/schema/run.ts'
import {
  buildFixedRun,
  FORK_A,
  FORK_B,
  GOOD_RUN,
  PLANTED_SECRET,
  XSS_RATIONALE,
} from '../src/report/internal/test-fixtures.ts'
import { openStore } from '../src/store/index.ts'
import { runBinSync } from './helpers/built-bin.ts'

// `crashlab show` and `crashlab report` through the built bin, on a stored run that was diagnosed, has two
// fixes (fix-1 VERIFIED, fix-2 REJECTED with a regression) and two stored forks: FORK_A tagged with the
// fix it tried, FORK_B found by the patch it applied. A fork of another run must not be listed.
const OTHER_FORK = '01M8KQ0000F0RK0000000000C2'
const { run } = buildFixedRun()
let dir: string

function crashlab(...args: string[]) {
  return runBinSync(dir, { CRASHLAB_DIR: join(dir, 'store') }, ...args)
}

function forkOf(from: Run, id: string, ms: number, patch: Run['fixes'][number]['patch']): Run {
  const fork = structuredClone(from)
  fork.id = id
  fork.startedAt = new Date(Date.parse(from.startedAt) + ms).toISOString()
  fork.endedAt = null
  fork.links = { forkedFrom: from.id, forkStep: 2, patch }
  fork.diagnosis = null
  fork.fixes = []
  return fork
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'crashlab-cli-report-fixes-'))
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n')
  const store = await openStore({ dir: join(dir, 'store'), config: false })
  try {
    store.save(run)
    const a = forkOf(run, FORK_A, 3500, run.fixes[1]!.patch)
    a.outcome = 'pass'
    a.cost = { usd: 0.0001 }
    store.save(a, { tags: ['fix', `fixes:${run.id}`, 'fix-1'] })
    const b = forkOf(run, FORK_B, 4500, run.fixes[0]!.patch)
    b.steps = b.steps.slice(0, 4)
    b.cost = null
    store.save(b, { tags: ['verify', 'regress'] })
    const other = forkOf(run, OTHER_FORK, 5500, run.fixes[1]!.patch)
    other.links.forkedFrom = GOOD_RUN
    store.save(other, { tags: ['fix-1'] })
  } finally {
    store.close()
  }
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('crashlab show and report: diagnosis, fixes, verification, attempts', () => {
  it('show: the diagnosis with its quotes, each fix on one line with its verdict, the attempts', () => {
    const r = crashlab('show', run.id)
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('BAD_TOOL_ARGUMENTS at step 3')
    expect(r.stdout).toContain('step 3: “amount 490 exceeds the order total 49 <b>denied</b>”')
    expect(r.stdout).toContain(`  1. fix-1 VERIFIED 90% vs 11% ($0.0123, pass^3 70%): ${XSS_RATIONALE}`)
    expect(r.stdout).toContain(
      '  2. fix-2 REJECTED 40% vs 20% ($0.0042, pass^3 0%, 1 past-good re-run failed, stopped: max-cost): The tool does not say its unit.',
    )
    expect(r.stdout).toMatch(new RegExp(`^ {2}${FORK_A} +fix-1 +pass +ok +5 +\\$0\\.0001 +fix,fix-1,`, 'm'))
    expect(r.stdout).toMatch(
      new RegExp(`^ {2}${FORK_B} +fix-2 +fail +ok +4 +unknown +regress,report-test,verify$`, 'm'),
    )
    expect(r.stdout.indexOf(FORK_A)).toBeLessThan(r.stdout.indexOf(FORK_B))
    expect(r.stdout).not.toContain(OTHER_FORK)
  })

  it('report: each fix with its diff and verification, and the fix attempts', () => {
    const r = crashlab('report', run.id)
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const out = r.stdout
    expect(out).toContain('      step 2: “issue_refund({"order_id":"A17","amount":490})”')
    expect(out).toContain(`  1. fix-1 VERIFIED — ${XSS_RATIONALE}`)
    expect(out).toContain('     patched:  9/10 passed (90%, 95% CI 60%–98%) · pass^3 70% · 0 errored of 10')
    expect(out).toContain('     control:  1/9 passed (11%, 95% CI 2%–43%) · pass^3 0% · 1 errored of 10')
    expect(out).toContain('       +Never refund more than the total get_order returned.')
    expect(out).toContain('  2. fix-2 REJECTED — The tool does not say its unit.')
    expect(out).toContain(`       ✗ from ${GOOD_RUN} → ${FORK_B}: refunded 0 on a good order <i>`)
    expect(out).toContain('       +  description: The amount is in cents.')
    expect(out).toContain('fix attempts (2)')
    expect(out).toMatch(new RegExp(`^ {2}${FORK_A} +fix-1 +try +pass +ok +5 +\\$0\\.0001$`, 'm'))
    expect(out).toMatch(new RegExp(`^ {2}${FORK_B} +fix-2 +regress +fail +ok +4 +unknown$`, 'm'))
    expect(out).not.toContain(OTHER_FORK)
    expect(out).not.toContain(PLANTED_SECRET)
  })

  it('report --html: badges, escaped rationale and quotes, the diffs in a <pre>, the attempts', () => {
    const file = join(dir, 'report.html')
    const r = crashlab('report', run.id, '--html', file)
    expect(r.code).toBe(0)
    const page = readFileSync(file, 'utf8')
    expect(page).not.toMatch(/<script|<b>|<i>/)
    expect(page).toContain('<span class="badge verdict verified">VERIFIED</span>')
    expect(page).toContain('<span class="badge verdict rejected">REJECTED</span>')
    expect(page).toContain('never says &lt;b&gt;compare&lt;/b&gt; the amount &amp; the &quot;total&quot;')
    expect(page).toContain(
      '<a href="#step-3">step 3</a></p><blockquote>amount 490 exceeds the order total 49 &lt;b&gt;denied&lt;/b&gt;</blockquote>',
    )
    expect(page).toContain('<pre class="diff">')
    expect(page).toContain('<span class="add">+  description: The amount is in cents.</span>')
    expect(page).toContain('9/10 passed (90%, 95% CI 60%–98%) · pass^3 70% · 0 errored of 10')
    expect(page).toContain(`<tr class="attempt" id="attempt-${FORK_A}" data-outcome="pass">`)
    expect(page).toContain(`<tr class="attempt" id="attempt-${FORK_B}" data-outcome="fail">`)
    expect(page).toContain('<td><a href="#fix-1">fix-2</a></td><td>regress</td>')
    expect(page).not.toContain(OTHER_FORK)
    expect(page).not.toContain(PLANTED_SECRET)
  })
})
