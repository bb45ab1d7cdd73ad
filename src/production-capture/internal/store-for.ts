import { openStore, resolveStoreDir } from '../../store/open-store.ts'
import type { RunStore } from '../../store/types.ts'

/**
 * Where a capture stores its run: `RunStore` is used as given (and never closed here), a string is a
 * store folder, `true` the default store, `false` none. Left out, it is the default store outside
 * Vitest and none inside it (`process.env.VITEST`): a test keeps its run in its cassette, a server,
 * a worker or a script in `.crashlab/`.
 *
 * @example
 * const option: StoreOption = process.env.NODE_ENV === 'production' ? '/var/lib/agent/.crashlab' : false
 */
export type StoreOption = RunStore | string | boolean

/**
 * One open store per folder for the whole process, opened on first use: a server calls `record` or
 * `capture` per request, and opening SQLite (and scanning the journals) every time would be waste. The
 * first open finalizes the journals dead processes left. They stay open until the process exits.
 */
const shared = new Map<string, Promise<RunStore>>()

/**
 * The store a capture writes to, or undefined for none. Opening may fail (a read-only folder, a
 * corrupt index): capture never changes what the agent sees, so that is a warning naming why (through
 * `warn` when given), and the run is simply not stored.
 *
 * @example
 * const store = await storeFor(options.store, { config: options.config })
 */
export async function storeFor(
  option: StoreOption | undefined,
  context: { config?: string | false; warn?: (what: string, error: unknown) => void } = {},
): Promise<RunStore | undefined> {
  const wanted = option ?? !process.env.VITEST
  if (wanted === false) return undefined
  if (typeof wanted === 'object') return wanted
  try {
    const dir = await resolveStoreDir({
      dir: typeof wanted === 'string' ? wanted : undefined,
      config: context.config,
    })
    let store = shared.get(dir)
    if (!store) {
      store = openStore({ dir })
      shared.set(dir, store)
      store.catch(() => shared.delete(dir))
    }
    return await store
  } catch (error) {
    ;(context.warn ?? warnStore)('could not open the run store; this run is not stored', error)
    return undefined
  }
}

/** A store failure as a warning (code `CRASHLAB_STORE`): the agent's run goes on regardless. */
export function warnStore(what: string, error: unknown): void {
  const reason = error instanceof Error ? error.message.replace(/^\[crashlab\] /, '') : String(error)
  process.emitWarning(`[crashlab] ${what}: ${reason}`, { code: 'CRASHLAB_STORE' })
}
