import type { Run } from '../case/schema/run.ts'
import { proposeFixes } from '../fix/propose-fixes.ts'
import { startScriptedProvider } from '../testing/start-scripted-provider.ts'
import { verify } from '../verify/verify.ts'
import { withOutage } from './entry.ts'
import { episodeSetup } from './faults.ts'
import type { BenchAgent, Episode } from './types.ts'

/**
 * What happened to the top fix of one diagnosed episode.
 *
 * @example
 * const row: FixOutcome = { agent: 'refund-bot', fault: 'dropped-policy', seed: 1, fix: 'fix-1', verdict: 'VERIFIED', reason: '…' }
 */
export interface FixOutcome {
  agent: string
  fault: string
  seed: number
  /** The fix verified, or null when the fixer proposed none (or failed). */
  fix: string | null
  /** The verdict, `NO_FIX` when none was proposed, `ERROR` when proposing or verifying failed. */
  verdict: string
  reason: string
}

/**
 * Asks the fixer for fixes of a diagnosed episode and verifies the top one with `verify` (patched forks
 * against controls until the verdict is decided, at most k an arm; no past good runs: those were made
 * with another model). The forks go live against
 * a scripted provider running the episode's own faulty model, in the episode's own world, so a fix is
 * VERIFIED only when it repairs the fault (a prompt patch can bring a dropped rule back; it cannot bring
 * a backend up).
 *
 * @example
 * const outcome = await verifyEpisodeFix(agent, episode, diagnosedRun, { model, baseUrl, apiKey, k: 3 })
 */
export async function verifyEpisodeFix<W>(
  agent: BenchAgent<W>,
  episode: Episode,
  diagnosed: Run,
  options: { model: string; baseUrl?: string; apiKey?: string; api?: 'openai' | 'anthropic'; k: number },
): Promise<FixOutcome> {
  const head = { agent: episode.agent, fault: episode.fault, seed: episode.seed }
  try {
    const { fixes } = await proposeFixes(diagnosed, {
      model: options.model,
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      api: options.api,
    })
    const top = fixes[0]
    if (!top)
      return {
        ...head,
        fix: null,
        verdict: 'NO_FIX',
        reason: 'the fixer proposed no fix that passed the checks',
      }
    const setup = episodeSetup(agent, episode.fault, episode.seed)
    // The forks' live calls go where the run's went (the fork's interceptor records only the hosts of
    // the run): the episode's provider is gone, so one with the same faulty model takes its port.
    const first = diagnosed.steps.find((s) => s.type === 'llm')
    const origin = first?.type === 'llm' ? new URL(first.request.wire.url) : undefined
    const provider = await startScriptedProvider({
      policy: setup.model([]),
      seed: episode.seed,
      ...(origin && { port: Number(origin.port) }),
    })
    const saved = process.env.CRASHLAB_BENCH_BASE_URL
    process.env.CRASHLAB_BENCH_BASE_URL = `${provider.url}/v1`
    try {
      const { verification } = await withOutage(agent.name, setup.down, () =>
        verify({ ...diagnosed, fixes }, { fix: top.id, k: options.k, regress: 'none', config: false }),
      )
      return { ...head, fix: top.id, verdict: verification.verdict, reason: verification.reason }
    } finally {
      if (saved === undefined) delete process.env.CRASHLAB_BENCH_BASE_URL
      else process.env.CRASHLAB_BENCH_BASE_URL = saved
      await provider.close()
    }
  } catch (err) {
    return { ...head, fix: null, verdict: 'ERROR', reason: (err as Error).message.split('\n')[0] ?? '' }
  }
}
