import { CrashlabError, type Run, type RunView, viewRun } from '../../src/internal.ts'

/**
 * Every matcher accepts what a test has at hand: the `Run` that `agentCase` returns, or the `RunView`
 * an oracle or an `assert` callback receives. A view is told apart by its `toolCalls` helper; anything
 * else must look like a Run (it has `steps`), or the matcher refuses it as a usage error rather than
 * failing with a message about a run that does not exist.
 */

/**
 * The received value as a view and as the Run it reads.
 *
 * @example
 * const { view, run } = asRunView(received, 'toCallTool')
 */
export function asRunView(received: unknown, matcher: string): { view: RunView; run: Run } {
  if (typeof received === 'object' && received !== null) {
    if (typeof (received as { toolCalls?: unknown }).toolCalls === 'function') {
      const view = received as RunView
      return { view, run: view.run }
    }
    if (Array.isArray((received as { steps?: unknown }).steps)) {
      const run = received as Run
      return { view: viewRun(run), run }
    }
  }
  throw new CrashlabError(
    'E_MATCHER_USAGE',
    `${matcher} expects a crashlab Run or RunView (what agentCase() returns, or what an oracle receives), ` +
      `but received ${describe(received)}.`,
  )
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object')
    return `an object with keys ${Object.keys(value).slice(0, 5).join(', ') || '(none)'}`
  return `a ${typeof value}`
}

/**
 * `n thing` or `n things`.
 *
 * @example
 * plural(2, 'check') // '2 checks'
 */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`
}
