import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadCassette } from '../case/cassette-load.ts'
import type { Run } from '../case/schema/run.ts'
import { heuristicDiagnosis } from '../diagnose/heuristic.ts'
import { isCrashlabError } from '../errors.ts'
import { openStore } from '../store/open-store.ts'
import { startScriptedProvider } from '../testing/start-scripted-provider.ts'
import type { ScriptedProvider } from '../testing/types.ts'
import { hardCodedData } from './hard-coded-data.ts'
import { proposeFixes } from './propose-fixes.ts'

const KEY = 'sk-proj-FixerKeyNeverOnDisk0123456789abcdef'
const CASSETTE = resolve(
  import.meta.dirname,
  '../../examples/refund-bot/__cassettes__/refund-a17-violation.cassette.json',
)
/** The refund bot's committed violation run (it refunded 490 on a 49 order A17), diagnosed by rules. */
function violation(): Run {
  const run = loadCassette(CASSETTE).run
  run.diagnosis = heuristicDiagnosis(run)
  return run
}

const GOOD = {
  kind: 'system_prompt',
  op: 'append',
  text: 'Before issue_refund, compare the amount with the total get_order returned; never exceed it.',
}
const HARD_CODED = { kind: 'system_prompt', op: 'append', text: 'For order A17, refund at most 49 dollars.' }
const TEST_ONLY = { kind: 'tool_result', tool: 'get_order', result: { total: 490 } }
const NO_TOOL = { kind: 'tool_description', tool: 'cancel_order', op: 'append', text: 'Only when asked.' }

let provider: ScriptedProvider
let answer = ''
let dir: string
beforeAll(async () => {
  provider = await startScriptedProvider({ policy: () => ({ text: answer }) })
  dir = mkdtempSync(join(tmpdir(), 'crashlab-fix-'))
})
afterAll(async () => {
  await provider.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('hardCodedData', () => {
  it("finds ids, emails and numbers ≥ 10 of the run's tool data in the text a patch adds", () => {
    const run = violation()
    expect(hardCodedData(HARD_CODED as never, run)).toEqual(expect.arrayContaining(['A17', '49']))
    expect(hardCodedData(GOOD as never, run)).toEqual([])
    // The text a patch names to find its target is not data it adds.
    const anchored = { kind: 'system_prompt', op: 'substitute', find: 'A17', replace: 'the order' }
    expect(hardCodedData(anchored as never, run)).toEqual([])
    // 490 inside 14905 is not 490; small numbers are not data.
    const numbers = { kind: 'system_prompt', op: 'append', text: 'Ticket 14905: answer in 3 lines.' }
    expect(hardCodedData(numbers as never, run)).toEqual([])
    run.steps.push({
      ...(run.steps[1] as Extract<Run['steps'][number], { type: 'tool' }>),
      index: 5,
      args: { email: 'ann@example.com' },
    })
    const email = { kind: 'inject_message', role: 'user', text: 'Write to ann@example.com.' }
    expect(hardCodedData(email as never, run)).toEqual(['ann@example.com'])
  })
})

describe('proposeFixes (the scripted provider plays the fixer)', () => {
  it('keeps the good fix only, each rejection with its reason; the call is recorded apart, without the key', async () => {
    answer = `Here are my fixes:\n\`\`\`json\n${JSON.stringify({
      fixes: [
        { patch: HARD_CODED, rationale: 'Caps this refund.', expected_effect: 'Refunds 49.' },
        {
          patch: GOOD,
          rationale: 'The prompt never says to compare.',
          expected_effect: 'Refunds at most the total.',
        },
        { patch: TEST_ONLY, rationale: 'Makes the total 490.', expected_effect: 'The refund matches.' },
        { patch: NO_TOOL, rationale: 'Restricts cancels.', expected_effect: 'No cancel.' },
        { patch: { kind: 'system_prompt', op: 'shout' }, rationale: 'x', expected_effect: 'y' },
      ],
    })}\n\`\`\``
    const before = provider.requests.length
    const store = await openStore({ dir: join(dir, 'fixer') })
    let result: Awaited<ReturnType<typeof proposeFixes>>
    try {
      result = await proposeFixes(violation(), {
        model: 'fixer-model',
        baseUrl: `${provider.url}/v1`,
        apiKey: KEY,
        recordTo: store,
        env: {},
      })
      expect(provider.requests.length - before).toBe(1)
      const sent = JSON.stringify(provider.requests.at(-1))
      // The heuristic's step: the model call that chose the refund, not the tool step that ran it.
      expect(sent).toContain('TASK_SPEC_VIOLATION at step 2')
      expect(sent).toContain('[step 3] tool issue_refund')
      expect(sent).toContain('tool_description')
      const recorded = store.list({ tag: 'fixer' })
      expect(recorded).toHaveLength(1)
      expect(store.load(recorded[0]?.id as string).steps[0]?.type).toBe('llm')
    } finally {
      store.close()
    }
    expect(result.fixes).toEqual([
      {
        id: 'fix-1',
        rank: 1,
        patch: GOOD,
        rationale: 'The prompt never says to compare.',
        expectedEffect: 'Refunds at most the total.',
      },
    ])
    const reasons = result.rejected.map((r) => r.reason)
    expect(reasons).toHaveLength(4)
    expect(reasons[0]).toMatch(
      /^hard-codes this run's data \("A17", "49"\)|^hard-codes this run's data \("49", "A17"\)/,
    )
    expect(reasons[1]).toMatch(/^test-only/)
    expect(reasons[2]).toMatch(/^target not found: .*cancel_order/s)
    expect(reasons[3]).toMatch(/^does not parse/)
    expect(result.rejected[1]?.patch).toEqual(TEST_ONLY)
    for (const file of walk(join(dir, 'fixer'))) expect(readFileSync(file, 'latin1')).not.toContain(KEY)
  })

  it('at most three fixes, ranked as given; an answer without JSON proposes nothing', async () => {
    const fix = (text: string) => ({
      patch: { kind: 'system_prompt', op: 'append', text },
      rationale: 'r',
      expected_effect: 'e',
    })
    answer = JSON.stringify({ fixes: [fix('One.'), fix('Two.'), fix('Three.'), fix('Four.')] })
    const { fixes, rejected } = await proposeFixes(violation(), {
      model: 'm',
      baseUrl: `${provider.url}/v1`,
      env: {},
    })
    expect(fixes.map((f) => [f.id, f.rank, (f.patch as { text: string }).text])).toEqual([
      ['fix-1', 1, 'One.'],
      ['fix-2', 2, 'Two.'],
      ['fix-3', 3, 'Three.'],
    ])
    expect(rejected).toEqual([
      { patch: fix('Four.').patch, reason: expect.stringContaining('more than 3 fixes') },
    ])
    answer = 'I cannot help with that.'
    expect(await proposeFixes(violation(), { model: 'm', baseUrl: `${provider.url}/v1`, env: {} })).toEqual({
      fixes: [],
      rejected: [],
    })
  })

  it('a run with no diagnosis, or no model: clear errors, and no call', async () => {
    const before = provider.requests.length
    const run = violation()
    run.diagnosis = null
    const noDiagnosis = await proposeFixes(run, { model: 'm', env: {} }).catch((e: unknown) => e)
    expect(isCrashlabError(noDiagnosis, 'E_FIX_NO_DIAGNOSIS')).toBe(true)
    expect((noDiagnosis as Error).message).toContain(`crashlab diagnose ${run.id}`)
    const noModel = await proposeFixes(violation(), { env: {} }).catch((e: unknown) => e)
    expect(isCrashlabError(noModel, 'E_FIX_CONFIG')).toBe(true)
    expect(provider.requests.length).toBe(before)
  })
})

function walk(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path]
  return readdirSync(path).flatMap((name) => walk(join(path, name)))
}
