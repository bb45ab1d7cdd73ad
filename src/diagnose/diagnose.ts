import type { Diagnosis, Run } from '../case/schema/run.ts'
import { CrashlabError } from '../errors.ts'
import type { RunStore } from '../store/types.ts'
import { callDiagnoserModel, resolveEndpoint } from './call-model.ts'
import { heuristicDiagnosis } from './heuristic.ts'
import { parseAnswer } from './internal/parse-answer.ts'
import { diagnoserPrompt } from './prompt.ts'
import { verifyEvidence } from './verify-evidence.ts'

/**
 * Options of `diagnose`. The model, endpoint and key default to `CRASHLAB_DIAGNOSER_MODEL`,
 * `CRASHLAB_DIAGNOSER_BASE_URL` (default `https://api.openai.com/v1`) and `CRASHLAB_DIAGNOSER_API_KEY`.
 *
 * @example
 * const options: DiagnoseOptions = { model: 'gpt-5-mini', baseUrl: 'http://127.0.0.1:11434/v1' }
 */
export interface DiagnoseOptions {
  /** Rules only, no model (`heuristicDiagnosis`). */
  heuristic?: boolean
  model?: string
  baseUrl?: string
  apiKey?: string
  /** The endpoint's API: `anthropic` (Messages) or `openai` (Chat Completions, any compatible server). Default: `anthropic` when the base URL's host says so. */
  api?: 'openai' | 'anthropic'
  /** Diagnose again even when the run already has a diagnosis by the same model. */
  force?: boolean
  /** Where the diagnoser's own LLM call is recorded, as a run of its own (never among the user's runs). */
  recordTo?: RunStore
  env?: NodeJS.ProcessEnv
  now?: () => Date
}

/**
 * Diagnoses a run: the failing step, a label, a one-sentence root cause and verbatim evidence, from one
 * LLM call over a compacted trace with the run's checks and findings as hints (or from rules, with
 * `heuristic`). Every quote is checked against the step it cites; an answer left with no valid quote
 * becomes `UNKNOWN`. A run that already has a diagnosis by the same model gets it back (the cache),
 * unless `force`. The caller stores the result with the run (`run.diagnosis`).
 *
 * @example
 * const diagnosis = await diagnose(run, { heuristic: true })
 * const byModel = await diagnose(run, { model: 'gpt-5-mini', apiKey: process.env.OPENAI_API_KEY })
 */
export async function diagnose(run: Run, options: DiagnoseOptions = {}): Promise<Diagnosis> {
  const now = options.now ?? (() => new Date())
  if (options.heuristic) {
    if (run.diagnosis?.by === 'heuristic' && !options.force) return run.diagnosis
    return heuristicDiagnosis(run, now())
  }
  const env = options.env ?? process.env
  const model = options.model ?? env.CRASHLAB_DIAGNOSER_MODEL
  if (!model) {
    throw new CrashlabError(
      'E_DIAGNOSE_CONFIG',
      'no diagnoser model: pass --model (or `model`), or set CRASHLAB_DIAGNOSER_MODEL; or use --heuristic, which needs none.',
    )
  }
  if (run.diagnosis?.by === model && !options.force) return run.diagnosis
  const endpoint = resolveEndpoint(
    model,
    options.baseUrl ?? env.CRASHLAB_DIAGNOSER_BASE_URL ?? 'https://api.openai.com/v1',
    options.apiKey ?? env.CRASHLAB_DIAGNOSER_API_KEY,
    options.api,
  )
  const { system, user } = diagnoserPrompt(run)

  // The diagnoser's call goes through a Session of its own: recorded (redacted), never part of the run.
  const text = await callDiagnoserModel({
    endpoint,
    system,
    user,
    name: 'crashlab-diagnoser',
    input: { diagnoses: run.id, model },
    recordTo: options.recordTo,
    tags: ['diagnoser', `diagnoses:${run.id}`],
    errorCode: 'E_DIAGNOSE_CALL',
    who: 'diagnoser',
  })
  const answer = parseAnswer(text)
  const createdAt = now().toISOString()
  if (!answer) {
    return {
      label: 'UNKNOWN',
      failingStep: null,
      rootCause: 'The diagnoser did not answer with the JSON asked for.',
      evidence: [],
      by: model,
      createdAt,
    }
  }
  const evidence = verifyEvidence(run, answer.evidence)
  const failingStep = answer.failing_step ?? null
  if (evidence.length === 0 && answer.label !== 'NO_FAILURE') {
    return {
      label: 'UNKNOWN',
      failingStep,
      rootCause: `The diagnoser said ${answer.label} (${answer.root_cause.trim()}) but quoted nothing found in the steps it cited.`,
      evidence: [],
      by: model,
      createdAt,
    }
  }
  return {
    label: answer.label,
    failingStep,
    rootCause: answer.root_cause.trim(),
    evidence,
    by: model,
    createdAt,
  }
}
