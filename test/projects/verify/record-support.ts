import { join } from 'node:path'
import { installInterceptor, openStore, type Run, record } from '../../../src/index.ts'
import { answerSupport } from './agent.ts'
import { RULE_FIX } from './model.ts'

/**
 * Records one run of the verify fixture's support bot against `providerUrl` into the store at
 * `storeDir`, with the project's config and its module entry point, so it can be forked and verified.
 * Without `rule` the run fails its oracle (the answer does not name the order); with RULE it passes.
 */
export async function recordSupportRun(options: {
  providerUrl: string
  project: string
  storeDir: string
  rule?: string
}): Promise<Run> {
  const interceptor = installInterceptor({ hosts: [options.providerUrl] })
  try {
    const { run, error } = await record('support-bot', answerSupport, {
      input: {
        question: 'Where is my order A17?',
        baseURL: `${options.providerUrl}/v1`,
        ...(options.rule && { rule: options.rule }),
      },
      config: join(options.project, 'crashlab.config.ts'),
      store: options.storeDir,
      entryPoint: { kind: 'module', module: './agent.ts', export: 'answerSupport' },
    })
    if (error) throw error
    return run
  } finally {
    await interceptor.close()
  }
}

/**
 * Saves `run` into the store at `storeDir` with one fix, `fix-1`: RULE appended to the system prompt
 * (what the fixer would propose), and returns the run as saved.
 */
export async function saveWithRuleFix(storeDir: string, run: Run): Promise<Run> {
  const withFix: Run = {
    ...run,
    fixes: [
      {
        id: 'fix-1',
        rank: 1,
        patch: RULE_FIX,
        rationale: 'Ask for the id.',
        expectedEffect: 'The answer names the order.',
      },
    ],
  }
  const store = await openStore({ dir: storeDir })
  try {
    store.save(withFix)
  } finally {
    store.close()
  }
  return withFix
}
