import pc from 'picocolors'
import type { TestModule } from 'vitest/node'
import type { CrashlabTaskMeta } from '../../fixtures/index.ts'

/**
 * The reporter's warnings about agents that ran but recorded no model call: one line per test whose
 * run summary (`task.meta.crashlab.run`) counts no `llm` step. Such a run usually means the
 * model client escaped crashlab (a call it did not recognise, a client it cannot see), so its cassette
 * and baselines hold the tools alone, and the next change to the prompt goes unnoticed. Tests that ran
 * live (`live()`, mode `off`) are left out: nothing is recorded there by design. Empty when all is well.
 *
 * @example
 * lines.push(...noModelCallWarnings(testModules)) // in a reporter's onTestRunEnd
 * // ⚠ "lookup only": agent "lookup" ran (1 tool call) but no model call was recorded; …
 */
export function noModelCallWarnings(testModules: ReadonlyArray<TestModule>): string[] {
  const lines: string[] = []
  for (const module of testModules) {
    for (const test of module.children.allTests()) {
      const meta = (test.meta() as { crashlab?: CrashlabTaskMeta }).crashlab
      const run = meta?.run
      if (!run || run.llmCalls > 0) continue
      if (meta.live === true || meta.cassette?.action === 'passthrough') continue
      const tools = `${run.toolCalls} tool call${run.toolCalls === 1 ? '' : 's'}`
      lines.push(
        pc.yellow(
          `  ⚠ "${test.fullName}": agent "${run.agent}" ran (${tools}) but no model call was recorded; if it ` +
            "calls a model, crashlab did not see the call: create the client after crashlab's setup (not " +
            'before the interceptor), or `wrap(client)`; a server crashlab cannot recognise as a model API ' +
            'goes in `hosts` (crashlab({ hosts: [...] })).',
        ),
      )
    }
  }
  return lines
}
