import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { NormalizedRequest } from '../src/case/schema/normalized.ts'
import type { Run } from '../src/index.ts'
import { type PolicyContext, type ScriptedProvider, startScriptedProvider } from '../src/testing/index.ts'
import { type BinResult, runBin } from './helpers/built-bin.ts'
import { copyProject, removeProject, runFixture } from './projects/run-fixture.ts'
import { supportAndFixerModel } from './projects/verify/model.ts'
import { recordSupportRun } from './projects/verify/record-support.ts'

// Every command crashlab prints as the next step (the CLI's `next:` lines and backquoted commands, the
// report's next commands, the annotation of a failing agentCase test) is run here through the built bin
// and must succeed. Two failing runs: the verify fixture's support bot (a module entry point, recorded
// against a scripted provider that also plays the diagnoser and the fixer) and the refund bot's committed
// violation run (imported: no entry point). Commands that need a model get the scripted provider.
const VIOLATION = resolve(
  import.meta.dirname,
  '..',
  'examples/refund-bot/__cassettes__/refund-a17-violation.cassette.json',
)
const REFUND_ID = '01M8KT643TKE0YKKFY94CFE3AY'

// Exported tests import 'crashlab/vitest' as a user's project does: here, this repository's plugin.
const VITEST_CONFIG = `import { resolve } from 'node:path'
import { defineConfig } from 'vitest/config'
import { crashlab } from '../../../plugin/index.ts'

export default defineConfig({
  plugins: [crashlab({ hosts: ['127.0.0.1'] })],
  resolve: { alias: { 'crashlab/vitest': resolve(import.meta.dirname, '../../../plugin/index.ts') } },
  test: { include: ['**/*.spec.ts', '**/*.crashlab.test.ts'], testTimeout: 30_000 },
})
`

// A failing agentCase test against the scripted provider: its annotation names the report command.
const failingSpec = (baseURL: string) => `import { test } from 'vitest'
import { agentCase } from '../../../plugin/index.ts'
import { answerSupport } from './agent.ts'

test('support names the order', agentCase(answerSupport, {
  agent: 'support-bot',
  input: { question: 'Where is my order A17?', baseURL: '${baseURL}' },
}))
`

/** The diagnoser's answers, by run: a verbatim quote of the step it names, or the answer is UNKNOWN. */
function diagnoserAnswer(request: NormalizedRequest): string {
  const text = JSON.stringify(request.messages)
  return JSON.stringify(
    text.includes('issue_refund')
      ? {
          label: 'TASK_SPEC_VIOLATION',
          failing_step: 3,
          root_cause: 'The agent refunded ten times the order total.',
          evidence: [{ step: 3, quote: '"amount":490' }],
        }
      : {
          label: 'TASK_SPEC_VIOLATION',
          failing_step: 2,
          root_cause: 'The answer does not name the order.',
          evidence: [{ step: 2, quote: 'Your order has shipped.' }],
        },
  )
}

function model(request: NormalizedRequest, ctx: PolicyContext) {
  const system = request.system.map((p) => (p.type === 'text' ? p.text : '')).join('\n')
  if (system.startsWith('You diagnose')) return { text: diagnoserAnswer(request) }
  return supportAndFixerModel(1)(request, ctx)
}

let provider: ScriptedProvider
let project: string
let storeDir: string
let support: Run

function crashlab(args: readonly string[]): Promise<BinResult> {
  return runBin(project, { CRASHLAB_DIR: storeDir }, args)
}

/** The commands an output names: `npx crashlab …` anywhere, and `crashlab …` between backquotes. */
function commandsIn(text: string): string[] {
  const found = [
    ...[...text.matchAll(/npx crashlab ([^`\n#]+)/g)].map((m) => m[1] as string),
    ...[...text.matchAll(/`crashlab ([^`\n]+)`/g)].map((m) => m[1] as string),
  ]
  // A placeholder (`<id>`, `…`) is a how-to, not a command to run.
  return found.map((c) => c.trim().replace(/[.,;:)]+$/, '')).filter((c) => !/[<>…]/.test(c))
}

/** The command as run here: a model for the commands that call one, through the scripted provider. */
function runnable(command: string): string[] {
  const args = command.split(/\s+/)
  const [name] = args
  const dry = args.includes('--dry-run') || args.includes('--heuristic')
  if ((name === 'diagnose' || name === 'fix') && !dry) {
    args.push('--model', 'scripted', '--base-url', `${provider.url}/v1`)
  }
  if ((name === 'fork' || name === 'verify') && !dry) args.push('--base-url', provider.url)
  if (name === 'verify' && !args.includes('--regress')) args.push('--regress', 'none')
  return args
}

/**
 * Runs each command (and each command its output names, in turn) once through the built bin; returns
 * the ones that failed, with what they printed.
 */
async function runAll(seeds: readonly string[]): Promise<{ ran: string[]; failed: string[] }> {
  const queue = [...new Set(seeds)]
  const seen = new Set<string>()
  const failed: string[] = []
  while (queue.length > 0 && seen.size < 60) {
    const command = queue.shift() as string
    if (seen.has(command)) continue
    seen.add(command)
    const args = runnable(command)
    const r =
      args[0] === 'vitest'
        ? await runFixture(project, args.slice(1), { bin: 'crashlab', env: { CRASHLAB_DIR: storeDir } }).then(
            (c) => ({
              code: c.code,
              stdout: c.output,
              stderr: '',
            }),
          )
        : await crashlab(args)
    if (r.code !== 0) failed.push(`npx crashlab ${command} → exit ${r.code}\n${r.stdout}\n${r.stderr}`)
    for (const next of commandsIn(r.stdout)) if (!seen.has(next)) queue.push(next)
  }
  return { ran: [...seen], failed }
}

beforeAll(async () => {
  provider = await startScriptedProvider({ policy: model })
  project = copyProject('verify')
  writeFileSync(join(project, 'vitest.config.ts'), VITEST_CONFIG)
  storeDir = mkdtempSync(join(tmpdir(), 'crashlab-next-commands-'))
  support = await recordSupportRun({ providerUrl: provider.url, project, storeDir })
  const imported = await crashlab(['import', VIOLATION])
  expect(imported.code, imported.stderr).toBe(0)
}, 120_000)
afterAll(async () => {
  await provider.close()
  removeProject(project)
  rmSync(storeDir, { recursive: true, force: true })
})

describe('next commands', () => {
  it('the CLI and the report name only commands that work, through diagnose, fix, verify and export', async () => {
    expect(support.outcome).toBe('fail')
    const outputs: string[] = []
    const step = async (args: string[]) => {
      const r = await crashlab(args)
      expect(r.code, `${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(0)
      outputs.push(r.stdout)
    }
    for (const id of [support.id, REFUND_ID]) {
      await step(['report', id])
      await step(['diagnose', id, '--heuristic'])
      await step(['diagnose', id, '--force', ...runnable('diagnose').slice(1)])
      await step(['report', id])
      await step(['fix', id, ...runnable('fix').slice(1)])
      await step(['report', id])
    }
    await step(['fix', support.id, '--try', '--fork-base-url', provider.url, ...runnable('fix').slice(1)])
    await step([
      'verify',
      support.id,
      '--fix',
      'fix-1',
      '-k',
      '5',
      '--regress',
      'none',
      '--base-url',
      provider.url,
    ])
    await step(['report', support.id])
    await step(['replay', support.id])
    const seeds = outputs.flatMap(commandsIn)
    // The commands of the issue: the heuristic diagnosis's fork, the report's, the verdict's export.
    expect(seeds, seeds.join('\n')).toContain(`fork ${REFUND_ID} --at 3 --dry-run`)
    expect(seeds).toContain(`replay ${support.id}`)
    expect(seeds.some((c) => c.startsWith(`export-test ${support.id} --fix fix-1`))).toBe(true)
    expect(seeds.some((c) => c.startsWith(`verify ${support.id} --fix fix-1`))).toBe(true)
    expect(seeds.some((c) => c.startsWith(`fork ${support.id} --at 2 --patch`))).toBe(true)
    expect(
      seeds.some(
        (c) => c.startsWith(`fork ${REFUND_ID} --at `) && c.endsWith(' --dry-run') && c.includes(' --patch '),
      ),
      seeds.join('\n'),
    ).toBe(true)
    expect(seeds).not.toContain(`replay ${REFUND_ID}`)
    const { ran, failed } = await runAll(seeds)
    expect(failed).toEqual([])
    // export-test's own next command ran too: the exported tests.
    expect(ran).toContain('vitest --exported')
  }, 900_000)

  it('the annotation of a failing agentCase test names a report command that works', async () => {
    writeFileSync(join(project, 'support.spec.ts'), failingSpec(`${provider.url}/v1`))
    const r = await runFixture(project, ['run', 'support.spec.ts'], {
      env: { CRASHLAB_RECORD: 'all', CRASHLAB_DIR: storeDir },
    })
    expect(r.code, r.output).toBe(1)
    const commands = commandsIn(r.output)
    expect(
      commands.some((c) => c.startsWith('report')),
      r.output,
    ).toBe(true)
    const { failed } = await runAll(commands)
    expect(failed).toEqual([])
  }, 300_000)
})
