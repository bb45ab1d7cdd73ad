/**
 * The no-key demo (`npm run demo`): the refund bot in five scenarios against the scripted provider (an
 * OpenAI-compatible server on loopback: no API key, no network), recorded into a demo store; then the
 * CLI lists, shows, checks and replays them and writes the HTML report of the failing run.
 *
 *   npm run demo                      # the five runs, then the CLI over them
 *   PROVIDER=anthropic npm run demo   # the same bot on the Anthropic Messages API
 *   FAULT_HTML_502=1 npm run demo     # the clean run meets a gateway's HTML 502 page first
 *   FAULT_RATE_LIMIT=1 npm run demo   # ... or a 429
 *   DEMO_STORE=/tmp/s npm run demo    # another store folder (default: .crashlab/demo, wiped first)
 *   node examples/refund-bot/demo/demo.ts --write-runs   # also refresh the committed runs in runs/
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import pc from 'picocolors'
import { record, writeCassette } from '../../../src/index.ts'
import { startScriptedProvider } from '../../../src/testing/index.ts'
import { demoRefundBot } from './entry.ts'
import { findingsText, outcomeLine } from './print.ts'
import { scenarios } from './scenarios.ts'

const INPUT = 'Refund my order A17, it arrived broken'
const HERE = import.meta.dirname
const ROOT = resolve(HERE, '../../..')
const BIN = join(ROOT, 'src/cli/bin.ts')
const store = resolve(process.env.DEMO_STORE ?? join(process.cwd(), '.crashlab', 'demo'))
const writeRuns = process.argv.includes('--write-runs')
const PROVIDER = process.env.PROVIDER === 'anthropic' ? 'anthropic' : 'openai'

// The demo's own store, started afresh: the ids below are this run's.
if (existsSync(join(store, 'index.db'))) rmSync(store, { recursive: true, force: true })
mkdirSync(store, { recursive: true })

console.log(
  pc.bold(
    `crashlab demo: the refund bot on ${PROVIDER === 'anthropic' ? 'Anthropic' : 'OpenAI'}, five runs against the scripted provider (no API key)\n`,
  ),
)
const ids = new Map<string, string>()
let n = 0
for (const s of scenarios()) {
  const provider = await startScriptedProvider({ policy: s.policy, seed: 1 })
  process.env.DEMO_BASE_URL = `${provider.url}/v1`
  try {
    const { run, error } = await record(s.name, demoRefundBot, {
      input: { message: INPUT, retries: s.retries, provider: PROVIDER },
      agent: 'refund-bot',
      store,
      tags: ['demo', `demo:${s.name}`],
      checks: s.checks,
      config: false,
      entryPoint: {
        kind: 'module',
        module: relative(process.cwd(), join(HERE, 'entry.ts')),
        export: 'demoRefundBot',
      },
    })
    ids.set(s.name, run.id)
    console.log(`${++n}. ${pc.bold(s.name)}  ${outcomeLine(run, error)}`)
    console.log(`   ${findingsText(run)}`)
    console.log(pc.dim(`   ${s.shows}`))
    if (writeRuns) writeCassette(join(HERE, 'runs', `${s.name}.cassette.json`), run)
  } finally {
    await provider.close()
    delete process.env.DEMO_BASE_URL
  }
}

/** Runs the crashlab command on the demo store and shows what it printed. */
function crashlab(why: string, ...args: string[]): number {
  console.log(`\n${pc.cyan(`$ npx crashlab ${args.join(' ')}`)}  ${pc.dim(`# ${why}`)}`)
  const r = spawnSync(process.execPath, [BIN, ...args, '--dir', store], {
    encoding: 'utf8',
    env: process.env,
  })
  process.stdout.write(r.stdout)
  process.stderr.write(r.stderr)
  return r.status ?? 1
}

const violation = ids.get('policy-violation') as string
const clean = ids.get('clean-refund') as string
crashlab('every run, newest first: outcome, steps, tokens, cost ($0: a local endpoint), findings', 'ls')
crashlab('the run the oracle failed: its checks and the step that refunded 490', 'show', violation)
crashlab('what CI runs: exit 1, since three runs fail a check or have an error finding', 'check', '--all')
crashlab(
  'the clean run again, offline, from its recording: the scripted provider is closed by now',
  'replay',
  clean,
)
const html = join(store, 'report.html')
crashlab('one self-contained HTML file: open it in a browser', 'report', violation, '--html', html)
writeFileSync(
  join(store, 'README.txt'),
  `The crashlab demo store. List it with: npx crashlab ls --dir ${store}\n`,
)
console.log(
  `\n${pc.bold('Next')}: open ${relative(process.cwd(), html)}, or import the committed runs anywhere with\n` +
    `  npx crashlab import ${relative(process.cwd(), join(HERE, 'runs'))}/*.cassette.json && npx crashlab ls`,
)
