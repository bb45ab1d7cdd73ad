import type { EntryPoint } from '../case/schema/run.ts'
import { check } from '../checks/oracles/check.ts'
import { CrashlabError } from '../errors.ts'
import { packageModule } from '../package-root.ts'
import { BENCH_AGENTS } from './agents/index.ts'

// Registered once per process: record, replay, fork and verify all grade a bench run by its agent's name.
// A fork loads this module again through Vite, whose transformed source the registry would not know for
// the same oracle; hence the flag on globalThis.
const REGISTERED = Symbol.for('crashlab.bench.oracles')
if (!(globalThis as Record<symbol, unknown>)[REGISTERED]) {
  ;(globalThis as Record<symbol, unknown>)[REGISTERED] = true
  for (const agent of BENCH_AGENTS) for (const o of agent.oracles()) check(agent.name, o.fn, { name: o.name })
}

/**
 * What a bench run is started with: the agent, the user's message and the system prompt it was given
 * (the trace shows the prompt anyway, so this tells a diagnoser nothing new).
 *
 * @example
 * const input: BenchEntryInput = { agent: 'refund-bot', message: 'Refund my order A17', system: refundBotAgent.systemPrompt }
 */
export interface BenchEntryInput {
  agent: string
  message: string
  system: string
}

/**
 * The backends down in this process, by agent: set by the bench around an episode and its forks. On
 * `globalThis`, because a fork loads this module again (through Vite) as a second instance.
 */
const OUTAGES = Symbol.for('crashlab.bench.outages')
const outages: Map<string, string> =
  ((globalThis as Record<symbol, unknown>)[OUTAGES] as Map<string, string> | undefined) ??
  new Map<string, string>()
;(globalThis as Record<symbol, unknown>)[OUTAGES] = outages

/**
 * Runs `fn` with the backend of `tool` down for `agent` (a gateway's HTML 502 page): how an episode and
 * the forks that verify its fixes meet the same world, without the run's input telling the diagnoser.
 *
 * @example
 * await withOutage('refund-bot', 'get_order', () => verify(run, options))
 */
export async function withOutage<T>(
  agent: string,
  tool: string | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  if (tool === undefined) return fn()
  outages.set(agent, tool)
  try {
    return await fn()
  } finally {
    outages.delete(agent)
  }
}

/**
 * The entry point of every bench run (`run.entryPoint`): runs the named agent once on a fresh world. The
 * bench calls it with the provider's URL and a session-routed `fetch` (`sessionFetch()`); a fork
 * (`crashlab fork`, `verify`) calls it with the input alone, and it then calls `$CRASHLAB_BENCH_BASE_URL`
 * with the global `fetch`, which the fork's interceptor records.
 *
 * @example
 * await benchAgentEntry({ agent: 'refund-bot', message: 'Refund my order A17', system }, { baseUrl, fetch: sessionFetch() })
 */
export async function benchAgentEntry(
  input: BenchEntryInput,
  via?: { baseUrl: string; fetch: typeof fetch },
): Promise<string> {
  const agent = BENCH_AGENTS.find((a) => a.name === input.agent)
  if (!agent) {
    throw new CrashlabError(
      'E_REPLAY_ENTRY',
      `no bench agent named ${JSON.stringify(input.agent)}; the agents are ${BENCH_AGENTS.map((a) => a.name).join(', ')}`,
    )
  }
  const world = agent.createWorld({ down: outages.get(agent.name) })
  return agent.run({
    baseUrl: via?.baseUrl ?? process.env.CRASHLAB_BENCH_BASE_URL ?? 'http://127.0.0.1:9/v1',
    system: input.system,
    input: input.message,
    world,
    fetch: via?.fetch ?? ((request, init) => globalThis.fetch(request, init)),
  })
}

/**
 * The entry point stored with bench runs: this module, by absolute path (it is not a package export).
 *
 * @example
 * run.entryPoint = BENCH_ENTRY_POINT
 */
export const BENCH_ENTRY_POINT: EntryPoint = {
  kind: 'module',
  module: packageModule('src/diagnose-bench/entry.ts'),
  export: 'benchAgentEntry',
}
