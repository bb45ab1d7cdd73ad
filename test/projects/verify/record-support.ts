import { join } from 'node:path'
import { installInterceptor, type Run, record } from '../../../src/index.ts'
import { answerSupport } from './agent.ts'

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
