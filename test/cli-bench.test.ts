import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { benchCommand } from '../src/cli/commands/bench.ts'
import { runCommand } from '../src/cli/internal/command.ts'
import { startScriptedProvider } from '../src/testing/index.ts'
import type { ScriptedProvider } from '../src/testing/types.ts'
import { BUILT_BIN, runBin } from './helpers/built-bin.ts'

// `crashlab bench` in this process (`runCommand`) until the lead registers it in main.ts; the
// built-bin test below runs as soon as the built CLI knows the command.
const ROOT = resolve(import.meta.dirname, '..')
const WILSON = /\d+\/\d+ +\d+% \[\d+–\d+\]/

async function bench(args: string[], env: Record<string, string | undefined> = {}) {
  const out: string[] = []
  const err: string[] = []
  const log = vi.spyOn(console, 'log').mockImplementation((...a) => void out.push(a.join(' ')))
  const error = vi.spyOn(console, 'error').mockImplementation((...a) => void err.push(a.join(' ')))
  const write = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    err.push(String(chunk))
    return true
  })
  const saved = { ...process.env }
  for (const key of Object.keys(process.env))
    if (/^CRASHLAB_(DIAGNOSER|FIXER)_/.test(key)) delete process.env[key]
  Object.assign(process.env, env, { NO_COLOR: '1' })
  try {
    await runCommand(benchCommand, { rawArgs: args })
  } finally {
    process.env = saved
    log.mockRestore()
    error.mockRestore()
    write.mockRestore()
  }
  const code = process.exitCode ?? 0
  process.exitCode = undefined
  return { code, stdout: out.join('\n'), stderr: err.join('') }
}

afterEach(() => {
  process.exitCode = undefined
})

describe('crashlab bench, with no model', () => {
  it('prints one table for the demo agents and one for the held-out agent, with Wilson intervals', async () => {
    const r = await bench(['--episodes', '1', '--seed', '4'])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('3 agents × 5 faults (clean included) × 1 episodes (seed 4)')
    expect(r.stdout).toContain('Demo agents: refund-bot, flight-rebooker')
    expect(r.stdout).toContain('Tuning set (seen while tuning): 3 agents')
    expect(r.stdout).toContain('judge them by the held-out set (--set heldout), reported apart')
    expect(r.stdout).toContain(
      'calendar-assistant, scored apart (held out when built, seen while tuning since)',
    )
    for (const fault of ['clean', 'dropped-policy', 'html-502', 'wrong-tool', 'bad-argument']) {
      expect(r.stdout).toMatch(
        new RegExp(
          `heuristic +calendar-assistant +${fault} +1/1|heuristic +calendar-assistant +${fault} +0/1`,
        ),
      )
    }
    expect(r.stdout).toMatch(new RegExp(`heuristic +demo agents +all +${WILSON.source}`))
    expect(r.stdout).toContain('LLM: not configured')
    expect(r.stdout).toContain('fixes: LLM not configured')
    // Progress goes to stderr, one line per episode (dimmed where colours are on, as under CI).
    const progress = r.stderr.replace(/\u001b\[[0-9;]*m/g, '')
    expect(progress.match(/^\[\d+\/15\]/gm)).toHaveLength(15)
  })

  it('--json: every cell with its counts and interval, no LLM, no fixes', async () => {
    const r = await bench([
      '--episodes',
      '2',
      '--agent',
      'refund-bot',
      '--fault',
      'wrong-tool,clean',
      '--json',
    ])
    expect(r.code).toBe(0)
    const report = JSON.parse(r.stdout)
    expect(report).toMatchObject({ episodes: 2, llm: null, fixes: null, faults: ['wrong-tool', 'clean'] })
    expect(report.runs).toHaveLength(4)
    const cell = report.cells.find((c: { fault: string }) => c.fault === 'wrong-tool')
    expect(cell.label.n).toBe(2)
    expect(cell.label.lower).toBeLessThanOrEqual(cell.label.upper)
    expect(report.runs[0].truth.label).toBe('WRONG_TOOL_SELECTION')
  })

  it('rejects a bad option with the usage error', async () => {
    const r = await bench(['--episodes', '0'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('--episodes must be a whole number ≥ 1')
    const s = await bench(['--fault', 'typo'])
    expect(s.stderr).toContain('--fault "typo" is not one of clean, dropped-policy')
  })

  it('--labelled scores the heuristic on the hand-labelled set', async () => {
    const r = await bench(['--labelled', join(ROOT, 'bench', 'diagnoser')])
    expect(r.code).toBe(0)
    const n = JSON.parse(readFileSync(join(ROOT, 'bench', 'diagnoser', 'labels.json'), 'utf8')).runs.length
    expect(r.stdout).toContain(`(${n} runs, seen while tuning)`)
    expect(r.stdout).not.toContain('llm on the labelled set')
    expect(r.stdout).toMatch(new RegExp(`label correct: ${WILSON.source}`))
    expect(r.stdout).toMatch(/true label +heuristic said/)
  })
})

describe('crashlab bench, with a model (the scripted provider playing diagnoser and fixer)', () => {
  let llm: ScriptedProvider
  beforeAll(async () => {
    llm = await startScriptedProvider({
      policy: (request) => {
        const system = request.system.map((p) => (p.type === 'text' ? p.text : '')).join('')
        const user = request.messages
          .map((m) => m.parts.map((p) => (p.type === 'text' ? p.text : '')).join(''))
          .join('')
        if (system.startsWith('You diagnose')) {
          const quote = /\[step 3\] tool issue_refund\n([^\n]{1,30})/.exec(user)?.[1] ?? 'none'
          return {
            text: JSON.stringify({
              label: 'TASK_SPEC_VIOLATION',
              failing_step: 2,
              root_cause: 'The refund cap is missing from the system prompt.',
              evidence: [{ step: 3, quote }],
            }),
          }
        }
        const patch = { kind: 'system_prompt', op: 'append', text: 'Never refund more than the order total.' }
        return {
          text: JSON.stringify({
            fixes: [{ patch, rationale: 'Restore the cap.', expected_effect: 'Refunds stay capped.' }],
          }),
        }
      },
    })
  })
  afterAll(() => llm.close())

  it('scores the LLM diagnoser beside the heuristic and verifies its top fix', async () => {
    const r = await bench([
      ...['--agent', 'refund-bot', '--fault', 'dropped-policy', '--episodes', '1', '--k', '5'],
      ...['--model', 'scripted-diagnoser', '--base-url', `${llm.url}/v1`],
    ])
    expect(r.stderr).not.toContain('Error')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('LLM: scripted-diagnoser')
    expect(r.stdout).toMatch(/llm +refund-bot +dropped-policy +1\/1 +100%/)
    expect(r.stdout).toMatch(/fixes: \d\/1 top fixes VERIFIED/)
    expect(r.stdout).toMatch(/refund-bot +dropped-policy +1 +fix-1 +VERIFIED/)
  })
})

describe('crashlab bench --set heldout and --labelled, with a model', () => {
  // A diagnoser that finds nothing wrong in any run: right on clean runs, wrong on failing ones, so the
  // LLM's row differs from the heuristic's and both are scored the same way, apart from the tuning set.
  let llm: ScriptedProvider
  const prompts: string[] = []
  beforeAll(async () => {
    llm = await startScriptedProvider({
      policy: (request) => {
        const system = request.system.map((p) => (p.type === 'text' ? p.text : '')).join('')
        if (system.startsWith('You diagnose')) prompts.push(system)
        return {
          text: JSON.stringify({ label: 'NO_FAILURE', failing_step: null, root_cause: 'Nothing failed.' }),
        }
      },
    })
  })
  afterAll(() => llm.close())

  it('--labelled: scores the LLM diagnoser on the hand-labelled set beside the heuristic', async () => {
    const before = prompts.length
    const r = await bench([
      ...['--labelled', join(ROOT, 'bench', 'diagnoser')],
      ...['--model', 'scripted-diagnoser', '--base-url', `${llm.url}/v1`],
    ])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/heuristic on the labelled set .* \(34 runs, seen while tuning\)/)
    expect(r.stdout).toMatch(/llm on the labelled set .* \(34 runs, seen while tuning\)/)
    const llmPart = r.stdout.slice(r.stdout.indexOf('llm on the labelled set'))
    // Answering NO_FAILURE to everything is right exactly on the set's runs labelled NO_FAILURE.
    const labels = JSON.parse(readFileSync(join(ROOT, 'bench', 'diagnoser', 'labels.json'), 'utf8')) as {
      runs: Array<{ label: string }>
    }
    const clean = labels.runs.filter((x) => x.label === 'NO_FAILURE').length
    expect(llmPart).toContain(`label correct: ${clean}/34`)
    expect(llmPart).toMatch(/llm said/)
    expect(prompts.length - before).toBe(34)
  })

  it('scores the LLM diagnoser on the held-out set beside the heuristic', async () => {
    const before = prompts.length
    const r = await bench([
      ...['--set', 'heldout', '--agent', 'bank-transfer', '--fault', 'clean,wrong-tool', '--episodes', '1'],
      ...['--model', 'scripted-diagnoser', '--base-url', `${llm.url}/v1`],
    ])
    expect(r.stderr).not.toContain('Error')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('Held-out set (never tuned on): 1 agents × 2 fault kinds × 1 episodes')
    expect(r.stdout).toContain('heuristic on the held-out set')
    expect(r.stdout).toContain('llm on the held-out set')
    const llmTable = r.stdout.slice(r.stdout.indexOf('llm on the held-out set'))
    expect(llmTable).toMatch(/label accuracy +1\/2 +50%/)
    expect(llmTable).toMatch(/false alarms on clean runs +0\/1 +0%/)
    expect(prompts.length - before).toBe(2)
  })
})

it('the built bin runs the bench and prints "LLM: not configured"', async () => {
  const r = await runBin(ROOT, {}, ['bench', '--episodes', '1'])
  expect(r.code, r.stderr).toBe(0)
  expect(r.stdout).toMatch(WILSON)
  expect(r.stdout).toContain('LLM: not configured')
  expect(BUILT_BIN).toContain('dist')
})
