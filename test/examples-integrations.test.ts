import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { runFixture } from './projects/run-fixture.ts'

// examples/integrations is its own Vitest project with the crashlab plugin: one support agent each on
// the Vercel AI SDK, the OpenAI Agents SDK, LangChain.js and Mastra. Under CI it replays the committed
// cassettes (nothing is written, so it runs in place): the scripted provider each spec starts gets no
// request and no refund is issued.
const DIR = join(import.meta.dirname, '..', 'examples', 'integrations')
const FRAMEWORKS = ['langchain', 'mastra', 'openai-agents', 'vercel-ai']

it('the integration examples replay their committed cassettes offline', { timeout: 120_000 }, async () => {
  const run = await runFixture(DIR, ['run'], { ci: true })
  if (run.code !== 0) throw new Error(run.output)
  expect(run.output).toMatch(/Test Files\s+4 passed \(4\)/)
  expect(run.output).toMatch(/Tests\s+13 passed \(13\)/)
  expect(run.output).toContain('cassettes: 0 recorded · 8 replayed (mode replay)')
  expect(run.log).toEqual(FRAMEWORKS.map(() => ({ requests: 0, refunds: 0 })))
})

it('the committed cassettes hold only model calls to the scripted provider and tool calls', () => {
  for (const framework of FRAMEWORKS) {
    const folder = join(DIR, framework, '__cassettes__', `${framework}.spec.ts`)
    const files = readdirSync(folder).sort()
    expect(files, framework).toHaveLength(2)
    for (const file of files) {
      const { run } = JSON.parse(readFileSync(join(folder, file), 'utf8')) as {
        run: { steps: Array<{ type: string; name?: string; request?: { wire: { url: string } } }> }
      }
      // No trace upload, telemetry or other `http` step: the frameworks only talked to the model.
      expect(
        run.steps.map((s) => s.type),
        `${framework}/${file}`,
      ).toEqual(['llm', 'tool', 'llm', 'tool', 'llm'])
      for (const step of run.steps.filter((s) => s.type === 'llm'))
        expect(step.request?.wire.url, `${framework}/${file}`).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\//)
    }
  }
})
