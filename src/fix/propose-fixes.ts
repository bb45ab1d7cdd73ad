import type { FixProposal, Run } from '../case/schema/run.ts'
import { callDiagnoserModel, resolveEndpoint } from '../diagnose/call-model.ts'
import { CrashlabError } from '../errors.ts'
import { checkTarget } from '../patches/check-target.ts'
import { leaves } from '../patches/define-patch.ts'
import { parsePatch, serializePatch } from '../patches/parse-patch.ts'
import { isTestOnlyPatch } from '../patches/patch-kinds.ts'
import type { Patch } from '../patches/patch-schema.ts'
import type { RunStore } from '../store/types.ts'
import { hardCodedData } from './hard-coded-data.ts'
import { fixerPrompt } from './prompt.ts'

/** The most fixes kept. @example fixes.slice(0, MAX_FIXES) */
export const MAX_FIXES = 3
/** A kept fix is at most this long, written as JSON. @example serializePatch(patch).length <= MAX_FIX_CHARS */
export const MAX_FIX_CHARS = 2000
/** A kept fix is at most this many single patches. @example leaves(patch).length <= MAX_FIX_LEAVES */
export const MAX_FIX_LEAVES = 3

/**
 * Options of `proposeFixes`. The model, endpoint and key default to `CRASHLAB_FIXER_MODEL`,
 * `CRASHLAB_FIXER_BASE_URL` and `CRASHLAB_FIXER_API_KEY`, then to the diagnoser's
 * (`CRASHLAB_DIAGNOSER_MODEL`, …), then to `https://api.openai.com/v1`.
 *
 * @example
 * const options: ProposeFixesOptions = { model: 'gpt-5-mini', baseUrl: 'http://127.0.0.1:11434/v1' }
 */
export interface ProposeFixesOptions {
  model?: string
  baseUrl?: string
  apiKey?: string
  /** `anthropic` (Messages) or `openai` (Chat Completions, any compatible server). Default: from the base URL's host. */
  api?: 'openai' | 'anthropic'
  /** Where the fixer's own LLM call is recorded, as a run of its own (never among the user's runs). */
  recordTo?: RunStore
  env?: NodeJS.ProcessEnv
}

/**
 * A proposal the fixer made that was dropped, and why.
 *
 * @example
 * const r: RejectedFix = { patch: { kind: 'tool_result', tool: 'get_order', error: 'x' }, reason: 'test-only: …' }
 */
export interface RejectedFix {
  patch: unknown
  reason: string
}

/**
 * What `proposeFixes` gives back: the kept fixes, ranked as the fixer gave them, and the rejected ones.
 *
 * @example
 * const { fixes, rejected }: ProposedFixes = await proposeFixes(run, { model: 'gpt-5-mini' })
 */
export interface ProposedFixes {
  fixes: FixProposal[]
  rejected: RejectedFix[]
}

/**
 * Turns a run's diagnosis into 1–3 ranked fixes: one LLM call, separate from the diagnosis, asked for
 * typed patches with a rationale and the expected effect. A proposal is kept only when it parses, is not
 * test-only (a fix must not change what a tool returned), finds its target in the run's requests, is
 * small (≤ 2,000 characters, ≤ 3 single patches) and does not hard-code the run's data (`hardCodedData`);
 * every other one comes back in `rejected` with its reason. Kept fixes get ids `fix-1`, `fix-2`, … The
 * caller stores them with the run (`run.fixes`). Throws `E_FIX_NO_DIAGNOSIS` for a run not diagnosed yet.
 *
 * @example
 * const run = store.load('last')
 * const { fixes, rejected } = await proposeFixes(run, { model: 'gpt-5-mini', apiKey: process.env.OPENAI_API_KEY })
 * store.save({ ...run, fixes })
 */
export async function proposeFixes(run: Run, options: ProposeFixesOptions = {}): Promise<ProposedFixes> {
  const diagnosis = run.diagnosis
  if (!diagnosis) {
    throw new CrashlabError(
      'E_FIX_NO_DIAGNOSIS',
      `run ${run.id} has no diagnosis yet: run \`crashlab diagnose ${run.id}\` first (add --heuristic for one without a model), then ask for fixes.`,
      { subject: run.id },
    )
  }
  const env = options.env ?? process.env
  const model = options.model ?? env.CRASHLAB_FIXER_MODEL ?? env.CRASHLAB_DIAGNOSER_MODEL
  if (!model) {
    throw new CrashlabError(
      'E_FIX_CONFIG',
      'no fixer model: pass --model (or `model`), or set CRASHLAB_FIXER_MODEL (or CRASHLAB_DIAGNOSER_MODEL).',
    )
  }
  const endpoint = resolveEndpoint(
    model,
    options.baseUrl ??
      env.CRASHLAB_FIXER_BASE_URL ??
      env.CRASHLAB_DIAGNOSER_BASE_URL ??
      'https://api.openai.com/v1',
    options.apiKey ?? env.CRASHLAB_FIXER_API_KEY ?? env.CRASHLAB_DIAGNOSER_API_KEY,
    options.api,
  )
  const { system, user } = fixerPrompt(run, diagnosis)
  const text = await callDiagnoserModel({
    endpoint,
    system,
    user,
    name: 'crashlab-fixer',
    input: { fixes: run.id, model },
    recordTo: options.recordTo,
    tags: ['fixer', `fixes:${run.id}`],
    errorCode: 'E_FIX_CALL',
    who: 'fixer',
    maxTokens: 2048,
  })
  return filterProposals(run, readProposals(text))
}

interface RawProposal {
  patch: unknown
  rationale: string
  expectedEffect: string
}

/** The proposals in the fixer's answer, read leniently (the JSON may sit in a code fence or prose). */
function readProposals(text: string): RawProposal[] {
  const start = text.indexOf('{')
  const end = text.lastIndexOf('}')
  if (start < 0 || end <= start) return []
  let json: unknown
  try {
    json = JSON.parse(text.slice(start, end + 1))
  } catch {
    return []
  }
  const list = (json as { fixes?: unknown } | null)?.fixes
  if (!Array.isArray(list)) return []
  return list.map((item) => {
    const o = (item ?? {}) as Record<string, unknown>
    const said = (v: unknown) => (typeof v === 'string' ? v.trim() : '')
    return {
      patch: o.patch,
      rationale: said(o.rationale),
      expectedEffect: said(o.expected_effect ?? o.expectedEffect),
    }
  })
}

function filterProposals(run: Run, proposals: RawProposal[]): ProposedFixes {
  const fixes: FixProposal[] = []
  const rejected: RejectedFix[] = []
  for (const proposal of proposals) {
    const reason = rejection(run, proposal)
    if (reason !== null) {
      rejected.push({ patch: proposal.patch, reason })
      continue
    }
    if (fixes.length >= MAX_FIXES) {
      rejected.push({
        patch: proposal.patch,
        reason: `more than ${MAX_FIXES} fixes: only the first ${MAX_FIXES} are kept`,
      })
      continue
    }
    const patch = parsePatch(proposal.patch)
    fixes.push({
      id: `fix-${fixes.length + 1}`,
      rank: fixes.length + 1,
      patch: JSON.parse(serializePatch(patch)),
      rationale: proposal.rationale,
      expectedEffect: proposal.expectedEffect,
    })
  }
  return { fixes, rejected }
}

/** Why a proposal is dropped, or null when it is kept. */
function rejection(run: Run, proposal: RawProposal): string | null {
  let patch: Patch
  try {
    patch = parsePatch(proposal.patch, 'the proposed patch')
  } catch (error) {
    return `does not parse: ${(error as Error).message.replace(/^\[crashlab\] /, '')}`
  }
  if (isTestOnlyPatch(patch)) {
    return 'test-only: a tool_result patch changes what a tool returned, not what the agent does; a fix must not'
  }
  const target = checkTarget(patch, run)
  if (!target.ok) return `target not found: ${target.error.message.replace(/^\[crashlab\] /, '')}`
  const size = serializePatch(patch).length
  const parts = leaves(patch).length
  if (size > MAX_FIX_CHARS || parts > MAX_FIX_LEAVES) {
    return `too big: ${size} characters and ${parts} single patches (at most ${MAX_FIX_CHARS} and ${MAX_FIX_LEAVES})`
  }
  const data = hardCodedData(patch, run)
  if (data.length > 0) {
    return `hard-codes this run's data (${data.map((d) => JSON.stringify(d)).join(', ')}): a fix must hold for every run`
  }
  return null
}
