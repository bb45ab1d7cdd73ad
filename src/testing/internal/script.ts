import type { NormalizedRequest } from '../../case/schema/normalized.ts'
import { CrashlabError, type ErrorCode } from '../../errors.ts'
import type { PolicyContext, ScriptedProviderOptions, ScriptedTurn } from '../types.ts'
import { checkTurn } from './check-turn.ts'

/** Where a model call is, for messages: its number and what was called. */
export interface CallLabel {
  index: number
  /** e.g. `openai-chat POST /v1/chat/completions`. */
  what: string
}

/** The turn to serve, or why there is none (answered as a 500 that SDKs are told not to retry). */
export type ScriptOutcome = { turn: ScriptedTurn } | { error: { code: ErrorCode; message: string } }

/** Decides each answer, from the list of turns or from the policy. */
export interface Script {
  next(request: NormalizedRequest, ctx: PolicyContext, label: CallLabel): Promise<ScriptOutcome>
}

/**
 * Checks the options and returns the script they describe. Invalid options throw at start, naming the
 * option, so a typo never surfaces later as a puzzling answer mid-test.
 *
 * @example
 * const script = createScript({ turns: [{ text: 'hi' }] })
 * await script.next(request, ctx, { index: 0, what: 'openai-chat POST /v1/chat/completions' }) // { turn: { text: 'hi' } }
 */
export function createScript(options: ScriptedProviderOptions): Script {
  checkOptions(options)
  const { turns, policy } = options
  if (policy) {
    return {
      async next(request, ctx, label) {
        let turn: unknown
        try {
          turn = await policy(request, ctx)
        } catch (err) {
          const reason = err instanceof Error ? err.message : String(err)
          return failure(
            'E_SCRIPT_POLICY',
            `the policy threw on model call ${label.index + 1} (${label.what}): ${reason}`,
          )
        }
        const problems = checkTurn(turn)
        if (problems === null) return { turn: turn as ScriptedTurn }
        return failure(
          'E_SCRIPT_INVALID',
          `the policy returned an invalid turn for model call ${label.index + 1} (${label.what}):\n${problems}`,
        )
      },
    }
  }
  const list = turns ?? []
  return {
    async next(_request, _ctx, label) {
      const turn = list[label.index]
      if (turn !== undefined) return { turn }
      return failure(
        'E_SCRIPT_EXHAUSTED',
        `model call ${label.index + 1} (${label.what}) has no turn: the script has ${list.length} ` +
          `turn${list.length === 1 ? '' : 's'}, all used. Add a turn to \`turns\` (one per model call, in order ` +
          'across all APIs), or answer from a `policy`.',
      )
    },
  }
}

function failure(code: ErrorCode, message: string): ScriptOutcome {
  return { error: { code, message: `[crashlab] scripted provider: ${message}` } }
}

function checkOptions(options: ScriptedProviderOptions): void {
  const invalid = (message: string): CrashlabError =>
    new CrashlabError('E_SCRIPT_INVALID', `startScriptedProvider: ${message}`, {
      subject: 'startScriptedProvider',
    })
  if (typeof options !== 'object' || options === null)
    throw invalid('pass an options object: { turns } or { policy }')
  if (options.turns !== undefined && options.policy !== undefined) {
    throw invalid('pass either `turns` or `policy`, not both (a policy can return turns from a list itself)')
  }
  if (options.turns === undefined && options.policy === undefined) {
    throw invalid('pass `turns` (answers in order) or `policy` (a function from the request to an answer)')
  }
  if (options.policy !== undefined && typeof options.policy !== 'function') {
    throw invalid('`policy` must be a function (request, ctx) => ScriptedTurn')
  }
  if (options.turns !== undefined) {
    if (!Array.isArray(options.turns)) throw invalid('`turns` must be an array of ScriptedTurn')
    options.turns.forEach((turn, i) => {
      const problems = checkTurn(turn)
      if (problems !== null) throw invalid(`turns[${i}] is not a valid turn:\n${problems}`)
    })
  }
  for (const key of ['latencyMs', 'chunkDelayMs'] as const) {
    const value = options[key]
    if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
      throw invalid(`\`${key}\` must be a number of milliseconds >= 0, got ${String(value)}`)
    }
  }
  if (
    options.port !== undefined &&
    !(Number.isInteger(options.port) && options.port >= 0 && options.port < 65536)
  ) {
    throw invalid(`\`port\` must be an integer from 0 (any free port) to 65535, got ${String(options.port)}`)
  }
}
