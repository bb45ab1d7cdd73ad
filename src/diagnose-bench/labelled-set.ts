import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { z } from 'zod'
import { loadCassette } from '../case/cassette-load.ts'
import { type Diagnosis, FailureLabelSchema, type Run } from '../case/schema/run.ts'
import { toValidationIssues } from '../case/validation-issues.ts'
import { heuristicDiagnosis } from '../diagnose/heuristic.ts'
import { CrashlabError } from '../errors.ts'
import { lazySchema, zod } from '../lazy-zod.ts'
import { confusion, labelCorrect, type ScoredEpisode, type Share, share, stepCorrect } from './score.ts'

/** One hand-labelled run: its cassette, the true label and failing step, and the other steps of the same action. */
export const LabelEntrySchema = lazySchema(() =>
  zod.strictObject({
    /** The cassette, relative to the set's folder. */
    file: zod.string(),
    label: FailureLabelSchema,
    failingStep: zod.number().int().nonnegative().nullable(),
    /** Steps of the same failing action that also count (the tool step of a bad model call). */
    alsoAccept: zod.array(zod.number().int().nonnegative()).default([]),
    /** Why, in the labeller's words. */
    note: zod.string(),
  }),
)

/** `labels.json` of a labelled evaluation set. */
export const LabelsFileSchema = lazySchema(() =>
  zod.strictObject({
    format: zod.literal('crashlab-diagnoser-labels'),
    version: zod.literal(1),
    runs: zod.array(LabelEntrySchema),
  }),
)

/**
 * One labelled run of the set, loaded.
 *
 * @example
 * const { run, entry } = set[0]!
 */
export interface LabelledRun {
  entry: z.infer<typeof LabelEntrySchema>
  run: Run
}

/**
 * Loads a labelled set: `labels.json` and every cassette it names. Throws `E_CONFIG_INVALID` for a labels
 * file that does not parse, or a label whose step is not a step of its run.
 *
 * @example
 * const set = loadLabelledSet('bench/diagnoser')
 */
export function loadLabelledSet(dir: string): LabelledRun[] {
  const path = join(dir, 'labels.json')
  if (!existsSync(path)) {
    throw new CrashlabError(
      'E_FILE_NOT_FOUND',
      `[crashlab] ${path} does not exist: --labelled takes a folder holding labels.json and the cassettes it names (the repository's bench/diagnoser is one; it is not in the npm package)`,
      { subject: path },
    )
  }
  const parsed = LabelsFileSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')))
  if (!parsed.success) {
    throw new CrashlabError('E_CONFIG_INVALID', `[crashlab] ${path} is not a valid labels file`, {
      issues: toValidationIssues(parsed.error.issues, {
        unknownKey: (k) => `unknown field ${k}: a run has file, label, failingStep, alsoAccept and note`,
      }),
    })
  }
  return parsed.data.runs.map((entry) => {
    const { run } = loadCassette(join(dir, entry.file), { binaries: false })
    for (const step of [entry.failingStep, ...entry.alsoAccept]) {
      if (step !== null && !run.steps[step]) {
        throw new CrashlabError(
          'E_CONFIG_INVALID',
          `[crashlab] ${path}: ${entry.file} is labelled at step ${step}, but its run has ${run.steps.length} steps`,
        )
      }
    }
    return { entry, run }
  })
}

/**
 * A diagnoser's score on a labelled set.
 *
 * @example
 * const { label, step } = scoreLabelledSet(loadLabelledSet('bench/diagnoser'))
 */
export interface LabelledScore {
  label: Share
  step: Share
  confusion: ReturnType<typeof confusion>
  /** Per true label: how many runs, how many labelled right. */
  perLabel: Record<string, Share>
}

/**
 * Scores the heuristic diagnoser on a labelled set: label accuracy, failing-step accuracy (the labelled
 * step or one of `alsoAccept`; no step for `NO_FAILURE`), both with Wilson 95 % intervals, and the
 * confusion of labels.
 *
 * @example
 * scoreLabelledSet(loadLabelledSet('bench/diagnoser')).label.rate
 */
export function scoreLabelledSet(set: readonly LabelledRun[]): LabelledScore {
  return scoreAnswers(
    set,
    set.map(({ run }) => heuristicDiagnosis(run)),
    'heuristic',
  )
}

/**
 * Scores any diagnoser (the LLM diagnoser, when a model is configured) on a labelled set the way
 * `scoreLabelledSet` scores the heuristic; a diagnosis that throws counts as wrong on label and step.
 *
 * @example
 * const llm = { name: 'llm', diagnose: (run: Run) => diagnose(run, { model, env: process.env, force: true }) }
 * const score = await scoreLabelledSetBy(loadLabelledSet('bench/diagnoser'), llm)
 */
export async function scoreLabelledSetBy(
  set: readonly LabelledRun[],
  diagnoser: { name: string; diagnose(run: Run): Diagnosis | Promise<Diagnosis> },
): Promise<LabelledScore> {
  const answers: Array<Diagnosis | null> = []
  for (const { run } of set) {
    try {
      answers.push(await diagnoser.diagnose(run))
    } catch {
      answers.push(null)
    }
  }
  return scoreAnswers(set, answers, diagnoser.name)
}

function scoreAnswers(
  set: readonly LabelledRun[],
  answers: ReadonlyArray<Diagnosis | null>,
  diagnoser: string,
): LabelledScore {
  const scored: ScoredEpisode[] = set.map(({ entry, run }, i) => ({
    diagnoser,
    agent: run.name,
    scoredApart: false,
    fault: entry.label,
    truth: {
      label: entry.label,
      failingStep: entry.failingStep,
      acceptedSteps: entry.failingStep === null ? [] : [entry.failingStep, ...entry.alsoAccept],
      how: entry.note,
    },
    diagnosis: answers[i] ?? null,
  }))
  const perLabel: Record<string, Share> = {}
  for (const label of new Set(scored.map((s) => s.truth.label))) {
    const of = scored.filter((s) => s.truth.label === label)
    perLabel[label] = share(of.filter((s) => labelCorrect(s.truth, s.diagnosis)).length, of.length)
  }
  return {
    label: share(scored.filter((s) => labelCorrect(s.truth, s.diagnosis)).length, scored.length),
    step: share(scored.filter((s) => stepCorrect(s.truth, s.diagnosis)).length, scored.length),
    confusion: confusion(scored),
    perLabel,
  }
}
