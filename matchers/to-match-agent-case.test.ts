import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { attachTest } from '../fixtures/replay-symbol.ts'
import { loadAgentCase, viewRun } from '../src/internal.ts'
import './index.ts'
import type { UpdatePolicy } from './internal/baseline-store.ts'
import { refundRun } from './internal/test-runs.ts'
import { toMatchAgentCase } from './to-match-agent-case.ts'

/**
 * Each test stands in for Vitest's snapshot state (the update policy and the written/updated/matched
 * counters) so that it runs the same locally, under CI=true and under -u; the real state is put back after.
 */
function useSnapshotState(policy: UpdatePolicy) {
  const counts = { added: 0, updated: 0, matched: 0 }
  const counter = (key: keyof typeof counts) => ({ increment: () => void counts[key]++ })
  expect.setState({
    snapshotState: {
      snapshotUpdateState: policy,
      added: counter('added'),
      updated: counter('updated'),
      matched: counter('matched'),
    } as never,
  })
  return counts
}

let real: unknown
let dir: string
beforeEach(() => {
  real = expect.getState().snapshotState
  dir = mkdtempSync(join(tmpdir(), 'crashlab-match-'))
})
afterEach(() => {
  expect.setState({ snapshotState: real as never })
  rmSync(dir, { recursive: true, force: true })
})

describe('toMatchAgentCase', () => {
  test('writes a missing baseline, counts it as written, then matches it', () => {
    const counts = useSnapshotState('new')
    const path = join(dir, 'refund.agentcase')
    expect(refundRun()).toMatchAgentCase({ path })
    expect(counts).toEqual({ added: 1, updated: 0, matched: 0 })
    expect(loadAgentCase(path).events.length).toBeGreaterThan(5)
    expect(refundRun()).toMatchAgentCase({ path })
    expect(counts).toEqual({ added: 1, updated: 0, matched: 1 })
  })

  test('a missing baseline fails under CI (policy none) and nothing is written', () => {
    const counts = useSnapshotState('none')
    const path = join(dir, 'refund.agentcase')
    expect(() => expect(refundRun()).toMatchAgentCase({ path })).toThrow(
      /No AgentCase baseline at .*refund\.agentcase, and baselines are not written on CI.*Run `vitest` \(or `vitest -u`\) locally/s,
    )
    expect(existsSync(path)).toBe(false)
    expect(counts.added).toBe(0)
  })

  test('trajectory mode ignores prose and ids but catches a changed tool argument', () => {
    const path = join(dir, 'refund.agentcase')
    useSnapshotState('new')
    expect(refundRun()).toMatchAgentCase({ path })
    useSnapshotState('none')
    expect(
      refundRun({ answer: 'All done, $49 is on its way back.', id: '01M8KQ0000OTHERRUN00000000' }),
    ).toMatchAgentCase({
      path,
    })
    expect(() => expect(refundRun({ amount: 490 })).toMatchAgentCase({ path })).toThrow(
      /differs from its AgentCase baseline .*: 1 difference in trajectory mode.*\n\s+\$\.events\[\d+\]\.arguments\.amount: expected 49, got 490 \(value_mismatch\)\nIf the change is intended, run `vitest -u`/,
    )
  })

  test('-u (policy all) rewrites a differing baseline and counts it as updated', () => {
    const path = join(dir, 'refund.agentcase')
    useSnapshotState('new')
    expect(refundRun()).toMatchAgentCase({ path })
    const before = readFileSync(path, 'utf8')
    const counts = useSnapshotState('all')
    expect(refundRun({ amount: 490 })).toMatchAgentCase({ path })
    expect(counts).toEqual({ added: 0, updated: 1, matched: 0 })
    expect(readFileSync(path, 'utf8')).not.toBe(before)
    useSnapshotState('none')
    expect(refundRun({ amount: 490 })).toMatchAgentCase({ path })
    expect(() => expect(refundRun()).toMatchAgentCase({ path })).toThrow(/expected 490, got 49/)
  })

  test('-u leaves a matching baseline alone', () => {
    const path = join(dir, 'refund.agentcase')
    useSnapshotState('new')
    expect(refundRun()).toMatchAgentCase({ path })
    const before = readFileSync(path, 'utf8')
    const counts = useSnapshotState('all')
    expect(refundRun({ answer: 'Reworded.' })).toMatchAgentCase({ path })
    expect(counts).toEqual({ added: 0, updated: 0, matched: 1 })
    expect(readFileSync(path, 'utf8')).toBe(before)
  })

  test('whole-case modes: normalized and exact see prose, structural only shapes; ids never count', () => {
    const path = join(dir, 'refund.agentcase')
    useSnapshotState('new')
    expect(refundRun()).toMatchAgentCase({ path, mode: 'exact' })
    useSnapshotState('none')
    const otherId = refundRun({ id: '01M8KQ0000OTHERRUN00000000' })
    expect(otherId).toMatchAgentCase({ path, mode: 'exact' })
    expect(otherId).toMatchAgentCase({ path, mode: 'normalized' })
    const reworded = refundRun({ answer: 'Reworded.' })
    expect(() => expect(reworded).toMatchAgentCase({ path, mode: 'normalized' })).toThrow(
      /2 differences in normalized mode[\s\S]*\n\s+\$\.events\[\d+\]\.payload\.output: expected "I have refunded \$49 for order A17\.", got "Reworded\."/,
    )
    expect(reworded).toMatchAgentCase({ path, mode: 'structural' })
    expect(refundRun({ amount: 490 })).toMatchAgentCase({ path, mode: 'structural' })
    expect(() => expect(refundRun({ amount: 490 })).toMatchAgentCase({ path, mode: 'exact' })).toThrow(
      /in exact mode/,
    )
  })

  test('default path beside the test file', () => {
    const counts = useSnapshotState('new')
    const cassettes = join(import.meta.dirname, '__cassettes__')
    const folder = join(cassettes, 'to-match-agent-case.test.ts')
    const file = join(folder, 'toMatchAgentCase › default path beside the test file.final.agentcase')
    const hadCassettes = existsSync(cassettes)
    try {
      expect(existsSync(file)).toBe(false)
      expect(viewRun(refundRun())).toMatchAgentCase('final')
      expect(counts.added).toBe(1)
      expect(loadAgentCase(file).format_name).toBe('agentcase')
      useSnapshotState('none')
      expect(() => expect(refundRun({ amount: 490 })).toMatchAgentCase('final')).toThrow(
        /baseline matchers\/__cassettes__\/to-match-agent-case\.test\.ts\/toMatchAgentCase › default path beside the test file\.final\.agentcase/,
      )
      // Without a name, the test's own baseline: a different file, so it is missing (and CI refuses it).
      expect(() => expect(refundRun()).toMatchAgentCase()).toThrow(
        /toMatchAgentCase › default path beside the test file\.agentcase/,
      )
    } finally {
      rmSync(hadCassettes ? folder : cassettes, { recursive: true, force: true })
    }
  })

  test("a run made in a test uses that test, not the expect state (test.concurrent's global expect)", () => {
    const counts: string[] = []
    expect.setState({
      snapshotState: {
        snapshotUpdateState: 'new',
        added: { increment: (key: string) => void counts.push(key) },
        matched: { increment: (key: string) => void counts.push(`matched ${key}`) },
      } as never,
    })
    const made = (name: string, id: string) =>
      attachTest(refundRun(), { file: join(dir, 'refund.test.ts'), name, id })
    const baseline = (name: string) =>
      join(dir, '__cassettes__', 'refund.test.ts', `${name.replace(' > ', ' › ')}.agentcase`)
    // The global expect names this test; each run names its own, and wins, through a view too.
    expect(made('refund > ticket 1', 'id-1')).toMatchAgentCase()
    expect(viewRun(made('refund > ticket 2', 'id-2'))).toMatchAgentCase()
    expect(existsSync(baseline('refund > ticket 1'))).toBe(true)
    expect(existsSync(baseline('refund > ticket 2'))).toBe(true)
    expect(made('refund > ticket 1', 'id-1')).toMatchAgentCase()
    expect(counts).toEqual(['id-1', 'id-2', 'matched id-1'])
    // A copy without the symbol has no test of its own: the expect state (this test) places it.
    const cassettes = join(import.meta.dirname, '__cassettes__')
    const folder = join(cassettes, 'to-match-agent-case.test.ts')
    const hadCassettes = existsSync(cassettes)
    try {
      expect({ ...made('refund > ticket 3', 'id-3') }).toMatchAgentCase('copy')
      expect(readdirSync(folder)).toEqual([
        "toMatchAgentCase › a run made in a test uses that test, not the expect state (test.concurrent's global expect).copy.agentcase",
      ])
    } finally {
      rmSync(hadCassettes ? folder : cassettes, { recursive: true, force: true })
    }
  })

  test('outside a test and without { path }, a run with no test of its own is a usage error', () => {
    // Outside a test: no test path or name, and a snapshot state that writes new baselines (as locally).
    const snapshotState = { snapshotUpdateState: 'new', added: { increment: () => {} } }
    const state = { isNot: false, snapshotState, utils: { matcherHint: () => '' } }
    expect(() => toMatchAgentCase.call(state as never, refundRun())).toThrow(
      expect.objectContaining({
        code: 'E_MATCHER_USAGE',
        message: expect.stringMatching(/or pass \{ path \}/),
      }),
    )
    const path = join(dir, 'outside.agentcase')
    const run = attachTest(refundRun(), { file: join(dir, 'x.test.ts'), name: 'x', id: 'id-x' })
    expect(toMatchAgentCase.call(state as never, run).pass).toBe(true)
    expect(existsSync(join(dir, '__cassettes__', 'x.test.ts', 'x.agentcase'))).toBe(true)
    expect(toMatchAgentCase.call(state as never, refundRun(), { path }).pass).toBe(true)
    expect(existsSync(path)).toBe(true)
  })

  test('a bad ignoredPaths pattern is an error, never a reason to rewrite the baseline', () => {
    const path = join(dir, 'refund.agentcase')
    useSnapshotState('new')
    expect(refundRun()).toMatchAgentCase({ path, mode: 'exact' })
    const before = readFileSync(path, 'utf8')
    useSnapshotState('all')
    expect(() =>
      expect(refundRun({ amount: 490 })).toMatchAgentCase({ path, mode: 'exact', ignoredPaths: ['events'] }),
    ).toThrow(expect.objectContaining({ code: 'E_DIFF_OPTIONS' }))
    expect(readFileSync(path, 'utf8')).toBe(before)
  })

  test('an unreadable baseline fails and -u writes it again', () => {
    const path = join(dir, 'refund.agentcase')
    writeFileSync(path, '{ not json')
    useSnapshotState('new')
    expect(() => expect(refundRun()).toMatchAgentCase({ path })).toThrow(
      /cannot be read:\n.*\nRun `vitest -u`/s,
    )
    const counts = useSnapshotState('all')
    expect(refundRun()).toMatchAgentCase({ path })
    expect(counts.updated).toBe(1)
    expect(loadAgentCase(path).format_name).toBe('agentcase')
  })

  test('.not and bad options are usage errors', () => {
    useSnapshotState('new')
    const path = join(dir, 'refund.agentcase')
    expect(() => expect(refundRun()).not.toMatchAgentCase({ path })).toThrow(/cannot be used with \.not/)
    expect(() => expect(refundRun()).toMatchAgentCase({ path, mode: 'fuzzy' as never })).toThrow(
      /mode must be one of/,
    )
    expect(() => expect(refundRun()).toMatchAgentCase({ path, mode: 'fuzzy' as never })).toThrow(
      expect.objectContaining({ code: 'E_MATCHER_USAGE' }),
    )
    expect(existsSync(path)).toBe(false)
  })
})
