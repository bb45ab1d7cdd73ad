import { readFileSync } from 'node:fs'
import { type GradeOptions, gradeRun } from '../../checks/grade-run.ts'
import { CrashlabError } from '../../errors.ts'
import { type ImportedTrace, readAgentsTrace, readOtlp, tracesToRuns } from '../../otel/index.ts'
import type { Redactor } from '../../redact/types.ts'
import type { RunStore } from '../../store/index.ts'

/**
 * The agent traces of a trace file (docs/otel.md), each as a run: OTLP JSON, or the OpenAI Agents SDK's
 * own trace payload (`openai-agents`); a file with none is an error that says what the import looks for.
 *
 * @example
 * for (const trace of readTraceFile('traces.jsonl', 'otlp')) store.save(trace.run)
 */
export function readTraceFile(file: string, format: 'otlp' | 'openai-agents'): ImportedTrace[] {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    throw new CrashlabError('E_FILE_NOT_FOUND', `cannot read ${file}: ${(error as Error).message}.`, {
      subject: file,
    })
  }
  const traces = tracesToRuns(format === 'otlp' ? readOtlp(text, file) : readAgentsTrace(text, file))
  if (traces.length === 0)
    throw new CrashlabError(
      'E_OTLP_MALFORMED',
      `${file} holds traces but no agent trace: no span carries GenAI attributes (gen_ai.*), the AI SDK's ` +
        "ai.*, OpenInference's llm.* or an Agents SDK model or tool span. Export the agent's spans with its " +
        'instrumentation on.',
      { subject: file },
    )
  return traces
}

/**
 * Stores an imported trace as a run, graded under `config` (`gradeRun`: its checks and prices), tagged `otel` besides
 * `tags` and redacted with `redactor` (the defaults without one), and returns the lines that say so: what was stored, then, for a trace that did
 * not capture every step's content, which steps lack it.
 *
 * @example
 * for (const line of saveTrace(store, trace, { tags: ['imported'], from: 'imported traces.jsonl' })) console.log(line)
 * // imported traces.jsonl trace 5b8e… as 01M8… (weather-agent, 3 steps; gen_ai)
 */
export function saveTrace(
  store: RunStore,
  trace: ImportedTrace,
  options: {
    tags: readonly string[]
    redactor?: Redactor | undefined
    /** The project's config: its checks and prices grade the run. */
    config: GradeOptions
    from: string
  },
): string[] {
  const tags = [...options.tags, 'otel']
  const run = gradeRun(trace.run, options.config)
  const saved = store.save(run, options.redactor ? { tags, redactor: options.redactor } : { tags })
  const lines = [
    `${options.from} trace ${trace.traceId} as ${saved.id} (${saved.name}, ${saved.steps} steps; ` +
      `${trace.conventions.join(', ')})`,
  ]
  if (trace.incompleteSteps.length > 0)
    lines.push(
      `  incomplete: step${trace.incompleteSteps.length === 1 ? '' : 's'} ${trace.incompleteSteps.join(', ')} ` +
        '(the trace holds no message content there: content capture is off in its instrumentation)',
    )
  return lines
}
